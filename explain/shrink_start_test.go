package explain

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
	"github.com/fencecheck/fencecheck/model"
)

// rejectedOutOfOrder: a rejection that a write sent in time could
// justify, but only by taking effect before a read that still returned
// the older value: no order of the three answers holds. The write
// and rejection alone are a valid history, so the witness (the rejection
// and the write that could justify it) does not reproduce, and the
// shrinker must look around it.
func rejectedOutOfOrder(b *hb, at int64, token uint64) {
	b.W(90, token+1, "refused", at, at+30, rej).On("r2")
	b.W(91, token+2, "lost", at+25, histories.Infinity, unk).On("r2")
	last := b.Ops[len(b.Ops)-3]
	for i := len(b.Ops) - 3; i >= 0; i-- {
		if op := b.Ops[i]; op.Resource == "r2" && op.IsWrite() && op.Status == acc {
			last = op
			break
		}
	}
	b.R(92, last.Value, last.Token, at+40, at+50).On("r2")
	b.W(93, token+10, "after", at+60, at+65, acc).On("r2")
}

// keepCulprit leaves in v only the step of its culprit: what a witness
// that names the answer the resource must not have given, and nothing
// that justifies it, looks like.
func keepCulprit(v Violation) Violation {
	for _, st := range v.Steps {
		if st.Culprit {
			v.Steps = []Step{st}
		}
	}
	return v
}

// The search starts from the witness and its justifiers when they
// reproduce, looks around the witness when they do not, and starts from
// the resource's whole history only when asked to; wherever it starts,
// the counterexample it returns is one the exact checker rejects.
func TestShrinkStartsFromTheWitness(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		bug       func(*hb, int64, uint64)
		checker   check.Checker
		witness   func(Violation) Violation
		noWitness bool
		start     string
		maxOps    int
	}{
		{"stale read: the named operations reproduce", staleRead, check.Porcupine, nil, false, "witness", 3},
		{"stale read named by its read alone: the justifying writes are added", staleRead, check.Porcupine, keepCulprit, false, "witness", 3},
		{"stale write accepted named alone: the barring write is added", staleAccepted, check.Porcupine, keepCulprit, false, "witness", 2},
		{"stale read from the fast checker's witness", staleRead, check.Fast, nil, false, "witness", 3},
		{"rejection out of order: the fast checker's witness reproduces", rejectedOutOfOrder, check.Fast, nil, false, "witness", 6},
		{"rejection out of order named alone: the witness does not reproduce, its neighbourhood does", rejectedOutOfOrder, check.Fast, keepCulprit, false, "neighbourhood", 6},
		{"stale read, delta debugging from the whole resource", staleRead, check.Porcupine, nil, true, "resource", 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := synthetic(2000, 11, tc.bug)
			opts := check.Options{Policy: model.Strict}
			res := CheckForTest(h, opts, tc.checker)
			require.Equal(t, check.Violated, res.Verdict)
			v := res.Violations[0]
			require.Equal(t, "r2", v.Resource)
			if tc.witness != nil {
				v = tc.witness(v)
			}
			so := DefaultShrinkOptions()
			so.NoHint = tc.noWitness
			s, ok, err := Shrink(context.Background(), h, nil, v, opts, so)
			require.NoError(t, err)
			require.True(t, ok, "a counterexample")
			t.Logf("%s: %d operations shrunk to %d, started from the %s, %d checks, rule %s", tc.name, len(h), len(s.Ops), s.Start, s.Checks, s.Violation.Rule)
			assert.Equal(t, tc.start, s.Start)
			assert.LessOrEqual(t, len(s.Ops), tc.maxOps)
			assert.True(t, s.Minimal)
			for _, c := range []check.Checker{check.Fast, check.Porcupine} {
				assert.Equal(t, check.Violated, CheckForTest(s.Ops, opts, c).Verdict, "the counterexample is invalid for the %s checker", c)
			}
		})
	}
}

// A search cut short by its context returns at once, with nothing or
// with what it found, never a counterexample it did not check.
func TestShrinkHonoursItsContext(t *testing.T) {
	t.Parallel()
	h := synthetic(2000, 11, rejectedOutOfOrder)
	opts := check.Options{Policy: model.Strict}
	v := CheckForTest(h, opts, check.Fast).Violations[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, ok, err := Shrink(ctx, h, nil, v, opts, DefaultShrinkOptions())
	require.NoError(t, err)
	if ok {
		assert.False(t, s.Minimal)
		assert.Equal(t, check.Violated, CheckForTest(s.Ops, opts, check.Fast).Verdict)
	}
	assert.Zero(t, s.Checks, "no candidate is checked after the context ended")
}

// The shrinker answers a candidate from a history already judged when
// its reads and rejections include (or are included in) that one's:
// includes is the test of that, on sorted sets.
func TestIncludes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b []int
		want bool
	}{
		{nil, nil, true},
		{[]int{1, 2, 3}, nil, true},
		{nil, []int{1}, false},
		{[]int{1, 2, 3}, []int{1, 3}, true},
		{[]int{1, 2, 3}, []int{1, 4}, false},
		{[]int{1, 3}, []int{1, 2, 3}, false},
		{[]int{2, 5, 9}, []int{9}, true},
	} {
		assert.Equal(t, tc.want, includes(tc.a, tc.b), "%v includes %v", tc.a, tc.b)
	}
}

// The benchmarks' late wrong rejection (histgen.BreakWrongRejectionFrom)
// is a violation under either checker, worded as a wrong rejection, and
// shrinks from its witness to a counterexample both checkers reject.
func TestPlantedWrongRejectionShrinksFromItsWitness(t *testing.T) {
	t.Parallel()
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 3))
		ops := histgen.Generate(r, histgen.Bench(3000, 1, 20, 0.1, false))
		require.True(t, histgen.BreakWrongRejectionFrom(ops, len(ops)*9/10))
		opts := check.Options{Policy: model.Strict}
		res := CheckForTest(ops, opts, check.Fast)
		require.Equal(t, check.Violated, res.Verdict, "seed %d", seed)
		v := res.Violations[0]
		assert.Equal(t, RuleWrongRejection, v.Rule, "seed %d", seed)
		s, ok, err := Shrink(context.Background(), ops, nil, v, opts, DefaultShrinkOptions())
		require.NoError(t, err)
		require.True(t, ok, "seed %d", seed)
		assert.Equal(t, "witness", s.Start, "seed %d", seed)
		assert.LessOrEqual(t, len(s.Ops), 3, "seed %d", seed)
		for _, c := range []check.Checker{check.Fast, check.Porcupine} {
			assert.Equal(t, check.Violated, CheckForTest(s.Ops, opts, c).Verdict, "seed %d: the counterexample is invalid for the %s checker", seed, c)
		}
	}
}
