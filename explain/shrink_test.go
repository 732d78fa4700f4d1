package explain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// synthetic builds a valid history of about n operations over four
// resources: owners take turns with increasing tokens, some writes are
// stale and rejected, readers read the current value. bug then breaks it
// once, on resource r2, in the way the test wants.
func synthetic(n int, seed uint64, bug func(b *hb, at int64, token uint64)) []histories.Operation {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := new(hb)
	type res struct {
		token uint64
		value string
	}
	state := map[string]*res{"r0": {}, "r1": {}, "r2": {}, "r3": {}}
	now := int64(0)
	proc := 0
	for i := 0; len(b.Ops) < n; i++ {
		name := fmt.Sprintf("r%d", rng.IntN(4))
		s := state[name]
		now += 10
		proc = (proc + 1) % 16
		switch k := rng.IntN(10); {
		case k < 5: // the new owner writes
			s.token++
			s.value = fmt.Sprintf("%s-%d", name, s.token)
			b.W(proc, s.token, s.value, now, now+5, acc).On(name)
		case k < 7 && s.token > 1: // an old owner is refused
			b.W(proc, s.token-1, fmt.Sprintf("%s-old-%d", name, i), now, now+5, rej).On(name)
		case s.token > 0:
			b.R(proc, s.value, s.token, now, now+5).On(name)
		default:
			b.Empty(proc, now, now+5).On(name)
		}
		if i == n/2 {
			now += 10
			bug(b, now, state["r2"].token)
			now += 100
			state["r2"].token += 10 // the bug's writes used these tokens
			state["r2"].value = b.Ops[len(b.Ops)-1].Value
			if !b.Ops[len(b.Ops)-1].IsWrite() {
				state["r2"].value = b.Ops[len(b.Ops)-2].Value
			}
		}
	}
	return b.Ops
}

// staleAccepted is the article's step 4 on a receiver without fencing: the
// newer owner's write returns, then the old owner's lower token is
// accepted too, while other owners keep writing in between.
func staleAccepted(b *hb, at int64, token uint64) {
	b.W(90, token+10, "new-result", at, at+5, acc).On("r2")
	b.W(91, token+1, "old-result", at+50, at+55, acc).On("r2")
	b.W(92, token+10, "new-result-again", at+60, at+65, rej).On("r2")
}

// staleRead: the resource accepted a newer token, then a read returned the
// value before it (a check-then-set receiver that lost the race).
func staleRead(b *hb, at int64, token uint64) {
	b.W(90, token+9, "older", at, at+5, acc).On("r2")
	b.W(91, token+10, "newer", at+10, at+15, acc).On("r2")
	b.R(92, "older", token+9, at+20, at+25).On("r2")
	b.W(93, token+10, "newer", at+30, at+35, rej).On("r2")
}

func TestShrinkSyntheticHistories(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		bug    func(*hb, int64, uint64)
		rule   string
		noHint bool
	}{
		{"stale write accepted", staleAccepted, RuleStaleAccepted, false},
		{"stale write accepted, delta debugging alone", staleAccepted, RuleStaleAccepted, true},
		{"stale read", staleRead, RuleStaleRead, false},
		{"stale read, delta debugging alone", staleRead, RuleStaleRead, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := synthetic(4000, 7, tc.bug)
			opts := check.Options{Policy: model.Strict, Timeout: 30 * time.Second}
			res := CheckPorcupine(h, opts)
			require.Equal(t, check.Violated, res.Verdict)
			require.Len(t, res.Violations, 1)
			v := res.Violations[0]
			require.Equal(t, "r2", v.Resource)
			require.Equal(t, tc.rule, v.Rule)

			start := time.Now()
			so := DefaultShrinkOptions()
			so.NoHint, so.Timeout = tc.noHint, 20*time.Second
			s, ok, err := Shrink(context.Background(), h, nil, v, opts, so)
			require.NoError(t, err)
			elapsed := time.Since(start)
			require.True(t, ok)
			t.Logf("%d operations shrunk to %d in %v with %d checks", len(h), len(s.Ops), elapsed.Round(time.Millisecond), s.Checks)
			for _, op := range s.Ops {
				t.Logf("  %s %s", Interval(op.Call, op.Return), model.DescribeHistoryOp(&op))
			}
			assert.LessOrEqual(t, len(s.Ops), 6)
			assert.True(t, s.Minimal, "the search should finish within its bound")
			// The search's cost in checks, not in wall time: the same
			// on a loaded machine (11, 5, 14 and 45 checks when written).
			assert.LessOrEqual(t, s.Checks, 200)
			again := CheckPorcupine(s.Ops, opts)
			assert.Equal(t, check.Violated, again.Verdict, "the minimal history is still invalid")
			assert.Equal(t, tc.rule, s.Violation.Rule)
			assert.Equal(t, len(s.Ops), len(s.OpIDs))
		})
	}
}

func TestShrinkTheSeedsStep4ToTwoWrites(t *testing.T) {
	t.Parallel()
	h := synthetic(2000, 3, staleAccepted)
	opts := check.Options{Policy: model.Strict}
	v := CheckPorcupine(h, opts).Violations[0]
	s, ok, err := Shrink(context.Background(), h, nil, v, opts, DefaultShrinkOptions())
	require.NoError(t, err)
	require.True(t, ok)
	require.Len(t, s.Ops, 2, "the newer accepted write and the stale accepted write")
	assert.Equal(t, "new-result", s.Ops[0].Value)
	assert.Equal(t, "old-result", s.Ops[1].Value)
}

func TestShrunkEventsAreACheckableHistory(t *testing.T) {
	t.Parallel()
	h := synthetic(500, 5, staleRead)
	opts := check.Options{Policy: model.Strict}
	v := CheckPorcupine(h, opts).Violations[0]
	s, ok, err := Shrink(context.Background(), h, nil, v, opts, DefaultShrinkOptions())
	require.NoError(t, err)
	require.True(t, ok)
	back, err := histories.Pair(s.Events())
	require.NoError(t, err)
	assert.Equal(t, check.Violated, CheckPorcupine(back.Expand(nil), opts).Verdict)
	assert.Len(t, back.Ops, len(s.Ops))
}

func TestShrinkRefusesAValidHistory(t *testing.T) {
	t.Parallel()
	h := new(hb).W(0, 1, "a", 0, 5, acc).W(1, 2, "b", 10, 15, acc).Ops
	_, ok, err := Shrink(context.Background(), h, nil, Violation{Resource: "report", Rule: RuleStaleAccepted}, check.Options{}, DefaultShrinkOptions())
	require.NoError(t, err)
	assert.False(t, ok)
}

// Zero bounds are no bounds: the search runs to its end.
func TestShrinkWithZeroBoundsRunsToTheEnd(t *testing.T) {
	t.Parallel()
	h := synthetic(2000, 3, staleAccepted)
	opts := check.Options{Policy: model.Strict}
	v := CheckPorcupine(h, opts).Violations[0]
	s, ok, err := Shrink(context.Background(), h, nil, v, opts, ShrinkOptions{})
	require.NoError(t, err)
	require.True(t, ok)
	assert.True(t, s.Minimal)
	assert.Len(t, s.Ops, 2)
}

func TestShrinkRejectsNegativeBounds(t *testing.T) {
	t.Parallel()
	h := synthetic(20, 3, staleAccepted)
	opts := check.Options{Policy: model.Strict}
	v := CheckPorcupine(h, opts).Violations[0]
	for _, tc := range []struct {
		field string
		so    ShrinkOptions
	}{
		{"Timeout", ShrinkOptions{Timeout: -time.Second}},
		{"CheckTimeout", ShrinkOptions{CheckTimeout: -time.Second}},
	} {
		t.Run(tc.field, func(t *testing.T) {
			_, ok, err := Shrink(context.Background(), h, nil, v, opts, tc.so)
			require.ErrorContains(t, err, tc.field+" -1s is negative")
			assert.False(t, ok)
		})
	}
}
