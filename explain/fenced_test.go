package explain

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/model"
)

func TestFencedRegister(t *testing.T) {
	t.Parallel()
	type want struct{ strict, acceptEqual check.Verdict }
	cases := []struct {
		name    string
		ops     *hb
		want    want
		summary string // expected in the explanation under strict, when violated
	}{
		{
			name: "stale write accepted after a newer one",
			ops:  new(hb).W(1, 42, "new", 0, 10, acc).W(0, 41, "old", 20, 30, acc),
			want: want{check.Violated, check.Violated}, summary: "stale write accepted: token 41",
		},
		{
			name: "stale write correctly rejected",
			ops:  new(hb).W(1, 42, "new", 0, 10, acc).W(0, 41, "old", 20, 30, rej).R(2, "new", 42, 40, 50),
			want: want{check.Held, check.Held},
		},
		{
			name: "newer token wrongly rejected",
			ops:  new(hb).W(0, 41, "old", 0, 10, acc).W(1, 42, "new", 20, 30, rej),
			want: want{check.Violated, check.Violated}, summary: "write with token 42 was rejected",
		},
		{
			name: "first write wrongly rejected",
			ops:  new(hb).W(0, 1, "a", 0, 10, rej),
			want: want{check.Violated, check.Violated}, summary: "no write that may have taken effect had been sent",
		},
		{
			name: "read returns the value of a rejected write",
			ops:  new(hb).W(1, 42, "new", 0, 10, acc).W(0, 41, "old", 20, 30, rej).R(2, "old", 41, 40, 50),
			want: want{check.Violated, check.Violated}, summary: "the value of a write the resource rejected",
		},
		{
			name: "read misses a completed newer write",
			ops:  new(hb).W(0, 41, "old", 0, 10, acc).W(1, 42, "new", 20, 30, acc).R(2, "old", 41, 40, 50),
			want: want{check.Violated, check.Violated}, summary: "stale read",
		},
		{
			name: "read finds nothing after an accepted write",
			ops:  new(hb).W(0, 41, "old", 0, 10, acc).Empty(2, 20, 30),
			want: want{check.Violated, check.Violated}, summary: "unwritten",
		},
		{
			name: "unknown write that took effect",
			ops:  new(hb).W(0, 41, "old", 0, 0, unk).R(2, "old", 41, 20, 30),
			want: want{check.Held, check.Held},
		},
		{
			name: "unknown write that did not take effect",
			ops:  new(hb).W(0, 41, "old", 0, 0, unk).Empty(2, 20, 30).W(1, 42, "new", 40, 50, acc).R(2, "new", 42, 60, 70),
			want: want{check.Held, check.Held},
		},
		{
			name: "unknown stale write after a newer accepted one can only be a no-op",
			ops:  new(hb).W(1, 42, "new", 0, 10, acc).W(0, 41, "old", 20, 0, unk).R(2, "old", 41, 40, 50),
			want: want{check.Violated, check.Violated},
		},
		{
			name: "concurrent writes, higher token lands last",
			ops:  new(hb).W(0, 41, "old", 0, 100, acc).W(1, 42, "new", 10, 90, acc).R(2, "new", 42, 110, 120),
			want: want{check.Held, check.Held},
		},
		{
			name: "concurrent writes, higher token lands first and the lower is rejected",
			ops:  new(hb).W(0, 41, "old", 0, 100, rej).W(1, 42, "new", 10, 90, acc).R(2, "new", 42, 110, 120),
			want: want{check.Held, check.Held},
		},
		{
			name: "concurrent writes cannot both be accepted if the lower was seen last",
			ops:  new(hb).W(0, 41, "old", 0, 100, acc).W(1, 42, "new", 10, 90, acc).R(2, "old", 41, 110, 120),
			want: want{check.Violated, check.Violated},
		},
		{
			name: "equal token repeated and accepted",
			ops:  new(hb).W(1, 42, "new", 0, 10, acc).W(1, 42, "again", 20, 30, acc).R(2, "again", 42, 40, 50),
			want: want{check.Violated, check.Held}, summary: "token 42 was accepted twice",
		},
		{
			// accept-equal allows either answer to a repeat: the
			// policies nest.
			name: "equal token repeated and rejected",
			ops:  new(hb).W(1, 42, "new", 0, 10, acc).W(1, 42, "again", 20, 30, rej).R(2, "new", 42, 40, 50),
			want: want{check.Held, check.Held},
		},
		{
			name: "equal token repeated and rejected, but its value read",
			ops:  new(hb).W(1, 42, "new", 0, 10, acc).W(1, 42, "again", 20, 30, rej).R(2, "again", 42, 40, 50),
			want: want{check.Violated, check.Violated}, summary: "the value of a write the resource rejected",
		},
		{
			name: "token 0 rejected on an unwritten resource",
			ops:  new(hb).W(0, 0, "zero", 0, 10, rej).Empty(1, 20, 30),
			want: want{check.Held, check.Held},
		},
		{
			name: "token 0 accepted on an unwritten resource",
			ops:  new(hb).W(0, 0, "zero", 0, 10, acc).R(1, "zero", 0, 20, 30),
			want: want{check.Violated, check.Held},
		},
		{
			name: "several resources: only one is broken",
			ops: new(hb).W(0, 5, "a", 0, 10, acc).On("x").W(1, 4, "b", 20, 30, rej).On("x").
				W(2, 7, "c", 0, 10, acc).On("y").W(3, 6, "d", 20, 30, acc).On("y"),
			want: want{check.Violated, check.Violated}, summary: "token 6",
		},
		{
			name: "several resources: tokens of one do not affect another",
			ops:  new(hb).W(0, 50, "a", 0, 10, acc).On("x").W(1, 4, "b", 20, 30, acc).On("y").R(2, "b", 4, 40, 50).On("y"),
			want: want{check.Held, check.Held},
		},
		{
			name: "read reports the wrong token",
			ops:  new(hb).W(0, 41, "old", 0, 10, acc).R(2, "old", 40, 20, 30),
			want: want{check.Violated, check.Violated}, summary: "reported token 40",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range []model.Policy{model.Strict, model.AcceptEqual} {
				exp := tc.want.strict
				if p == model.AcceptEqual {
					exp = tc.want.acceptEqual
				}
				res := CheckPorcupine(tc.ops.Ops, check.Options{Policy: p})
				require.Equal(t, exp, res.Verdict, "policy %s", p)
				if exp == check.Violated {
					require.NotEmpty(t, res.Violations)
					assert.NotEmpty(t, res.Violations[0].Summary)
				}
				if exp == check.Violated && p == model.Strict && tc.summary != "" {
					assert.Contains(t, res.Violations[0].Summary, tc.summary)
				}
			}
		})
	}
}

func TestPlainRegisterShowsWhatFencingAdds(t *testing.T) {
	t.Parallel()
	// The seed's step 4 on an unfenced resource: a consistent register
	// history, and a fenced-register violation.
	ops := new(hb).W(1, 42, "new-result", 3000, 3100, acc).W(0, 41, "old-result", 4000, 4100, acc).R(2, "old-result", 41, 5000, 5100).Ops
	assert.Equal(t, check.Held, CheckPorcupine(ops, check.Options{Kind: model.KindRegister}).Verdict)
	assert.Equal(t, check.Violated, CheckPorcupine(ops, check.Options{Kind: model.KindFenced}).Verdict)

	stale := new(hb).W(1, 42, "new", 0, 10, acc).R(2, "missing", 0, 20, 30).Ops
	assert.Equal(t, check.Violated, CheckPorcupine(stale, check.Options{Kind: model.KindRegister}).Verdict)
}

// Porcupine's page puts an operation's description in as text and the
// states and metadata as HTML, so only the latter are escaped: escaping
// the description showed "&#34;" on the page.
