package models

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFencedRegister(t *testing.T) {
	t.Parallel()
	type want struct{ strict, acceptEqual Verdict }
	cases := []struct {
		name    string
		ops     *hb
		want    want
		summary string // expected in the explanation under strict, when violated
	}{
		{
			name: "stale write accepted after a newer one",
			ops:  new(hb).w(1, 42, "new", 0, 10, acc).w(0, 41, "old", 20, 30, acc),
			want: want{Violated, Violated}, summary: "stale write accepted: token 41",
		},
		{
			name: "stale write correctly rejected",
			ops:  new(hb).w(1, 42, "new", 0, 10, acc).w(0, 41, "old", 20, 30, rej).r(2, "new", 42, 40, 50),
			want: want{Held, Held},
		},
		{
			name: "newer token wrongly rejected",
			ops:  new(hb).w(0, 41, "old", 0, 10, acc).w(1, 42, "new", 20, 30, rej),
			want: want{Violated, Violated}, summary: "write with token 42 was rejected",
		},
		{
			name: "first write wrongly rejected",
			ops:  new(hb).w(0, 1, "a", 0, 10, rej),
			want: want{Violated, Violated}, summary: "no write that may have taken effect had been sent",
		},
		{
			name: "read returns the value of a rejected write",
			ops:  new(hb).w(1, 42, "new", 0, 10, acc).w(0, 41, "old", 20, 30, rej).r(2, "old", 41, 40, 50),
			want: want{Violated, Violated}, summary: "the value of a write the resource rejected",
		},
		{
			name: "read misses a completed newer write",
			ops:  new(hb).w(0, 41, "old", 0, 10, acc).w(1, 42, "new", 20, 30, acc).r(2, "old", 41, 40, 50),
			want: want{Violated, Violated}, summary: "stale read",
		},
		{
			name: "read finds nothing after an accepted write",
			ops:  new(hb).w(0, 41, "old", 0, 10, acc).empty(2, 20, 30),
			want: want{Violated, Violated}, summary: "unwritten",
		},
		{
			name: "unknown write that took effect",
			ops:  new(hb).w(0, 41, "old", 0, 0, unk).r(2, "old", 41, 20, 30),
			want: want{Held, Held},
		},
		{
			name: "unknown write that did not take effect",
			ops:  new(hb).w(0, 41, "old", 0, 0, unk).empty(2, 20, 30).w(1, 42, "new", 40, 50, acc).r(2, "new", 42, 60, 70),
			want: want{Held, Held},
		},
		{
			name: "unknown stale write after a newer accepted one can only be a no-op",
			ops:  new(hb).w(1, 42, "new", 0, 10, acc).w(0, 41, "old", 20, 0, unk).r(2, "old", 41, 40, 50),
			want: want{Violated, Violated},
		},
		{
			name: "concurrent writes, higher token lands last",
			ops:  new(hb).w(0, 41, "old", 0, 100, acc).w(1, 42, "new", 10, 90, acc).r(2, "new", 42, 110, 120),
			want: want{Held, Held},
		},
		{
			name: "concurrent writes, higher token lands first and the lower is rejected",
			ops:  new(hb).w(0, 41, "old", 0, 100, rej).w(1, 42, "new", 10, 90, acc).r(2, "new", 42, 110, 120),
			want: want{Held, Held},
		},
		{
			name: "concurrent writes cannot both be accepted if the lower was seen last",
			ops:  new(hb).w(0, 41, "old", 0, 100, acc).w(1, 42, "new", 10, 90, acc).r(2, "old", 41, 110, 120),
			want: want{Violated, Violated},
		},
		{
			name: "equal token repeated and accepted",
			ops:  new(hb).w(1, 42, "new", 0, 10, acc).w(1, 42, "again", 20, 30, acc).r(2, "again", 42, 40, 50),
			want: want{Violated, Held}, summary: "token 42 was accepted twice",
		},
		{
			// accept-equal allows either answer to a repeat: the
			// policies nest.
			name: "equal token repeated and rejected",
			ops:  new(hb).w(1, 42, "new", 0, 10, acc).w(1, 42, "again", 20, 30, rej).r(2, "new", 42, 40, 50),
			want: want{Held, Held},
		},
		{
			name: "equal token repeated and rejected, but its value read",
			ops:  new(hb).w(1, 42, "new", 0, 10, acc).w(1, 42, "again", 20, 30, rej).r(2, "again", 42, 40, 50),
			want: want{Violated, Violated}, summary: "the value of a write the resource rejected",
		},
		{
			name: "token 0 rejected on an unwritten resource",
			ops:  new(hb).w(0, 0, "zero", 0, 10, rej).empty(1, 20, 30),
			want: want{Held, Held},
		},
		{
			name: "token 0 accepted on an unwritten resource",
			ops:  new(hb).w(0, 0, "zero", 0, 10, acc).r(1, "zero", 0, 20, 30),
			want: want{Violated, Held},
		},
		{
			name: "several resources: only one is broken",
			ops: new(hb).w(0, 5, "a", 0, 10, acc).on("x").w(1, 4, "b", 20, 30, rej).on("x").
				w(2, 7, "c", 0, 10, acc).on("y").w(3, 6, "d", 20, 30, acc).on("y"),
			want: want{Violated, Violated}, summary: "token 6",
		},
		{
			name: "several resources: tokens of one do not affect another",
			ops:  new(hb).w(0, 50, "a", 0, 10, acc).on("x").w(1, 4, "b", 20, 30, acc).on("y").r(2, "b", 4, 40, 50).on("y"),
			want: want{Held, Held},
		},
		{
			name: "read reports the wrong token",
			ops:  new(hb).w(0, 41, "old", 0, 10, acc).r(2, "old", 40, 20, 30),
			want: want{Violated, Violated}, summary: "reported token 40",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, p := range []Policy{Strict, AcceptEqual} {
				exp := tc.want.strict
				if p == AcceptEqual {
					exp = tc.want.acceptEqual
				}
				res := CheckPorcupine(tc.ops.ops, Options{Policy: p})
				require.Equal(t, exp, res.Verdict, "policy %s", p)
				if exp == Violated {
					require.NotEmpty(t, res.Violations)
					assert.NotEmpty(t, res.Violations[0].Summary)
				}
				if exp == Violated && p == Strict && tc.summary != "" {
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
	ops := new(hb).w(1, 42, "new-result", 3000, 3100, acc).w(0, 41, "old-result", 4000, 4100, acc).r(2, "old-result", 41, 5000, 5100).ops
	assert.Equal(t, Held, CheckPorcupine(ops, Options{Kind: KindRegister}).Verdict)
	assert.Equal(t, Violated, CheckPorcupine(ops, Options{Kind: KindFenced}).Verdict)

	stale := new(hb).w(1, 42, "new", 0, 10, acc).r(2, "missing", 0, 20, 30).ops
	assert.Equal(t, Violated, CheckPorcupine(stale, Options{Kind: KindRegister}).Verdict)
}

// Porcupine's page puts an operation's description in as text and the
// states and metadata as HTML, so only the latter are escaped: escaping
// the description showed "&#34;" on the page.
func TestDescriptionsAreEscapedWhereThePageUsesHTML(t *testing.T) {
	t.Parallel()
	got := describeOperation(Input{Write: true, Token: 1, Value: "<script>"}, Output{Status: acc})
	assert.Equal(t, `write(1, "<script>") → accepted`, got)
	assert.Contains(t, describeState(State{Written: true, Value: "a&b", Token: 3}), "a&amp;b")
	assert.NotContains(t, describeMetadata(Meta{Resource: "<b>"}), "<b>")
	assert.Equal(t, "never written", describeState(State{}))
}
