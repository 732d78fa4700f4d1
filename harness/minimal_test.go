package harness

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// bigRun records a deterministic run of about ops operations against a
// broken receiver, without the report, and reads its history back.
func bigRun(t *testing.T, target string, seed uint64, ops int, policy model.Policy) (Result, *histories.History) {
	t.Helper()
	tgt, err := memory.Open(target)
	require.NoError(t, err)
	faults, err := nemesis.Parse("pause,delay")
	require.NoError(t, err)
	res, err := Run(context.Background(), testConfig(t, tgt, "memory://"+target, func(c *Config) {
		c.Nemesis.Faults, c.Runtime.Seed, c.Gates.Policy, c.Store.NoReport = faults, seed, policy, true
		if ops > 0 {
			c.Workload.Duration, c.Workload.Ops = 0, ops
		}
	}))
	require.NoError(t, err)
	require.Equal(t, judge.Violated, res.Verdict, "seed %d", seed)
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
	require.NoError(t, err)
	return res, h
}

// TestMinimalCounterexamples: invalid histories of thousands of operations
// from seeded runs shrink to at most six operations that are still
// invalid, with the explanation's hint in a handful of checks and by delta
// debugging alone in a few hundred. The bound is on checks, not on time,
// so that a loaded machine cannot fail it; the search has no time limit
// here for the same reason.
func TestMinimalCounterexamples(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"unfenced", "check-then-set"} {
		for _, seed := range []uint64{1, 2, 3} {
			for _, noHint := range []bool{false, true} {
				name := target + "/seed " + string(rune('0'+seed))
				if noHint {
					name += "/ddmin alone"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					res, h := bigRun(t, target, seed, 4000, model.Strict)
					require.GreaterOrEqual(t, len(h.Ops), 4000)
					opts := check.Options{Policy: model.Strict}
					start := time.Now()
					// Zero bounds: the search runs to its end however loaded the machine.
					s, ok, err := explain.Shrink(context.Background(), h.Expand(nil), h.Others, res.Check.Violations[res.Check.First()], opts, explain.ShrinkOptions{NoHint: noHint})
					require.NoError(t, err)
					elapsed := time.Since(start)
					require.True(t, ok)
					t.Logf("%s: %d operations → %d (%s) in %v, %d checks", name, len(h.Ops), len(s.Ops), s.Violation.Rule, elapsed.Round(time.Millisecond), s.Checks)
					assert.LessOrEqual(t, len(s.Ops), 6)
					assert.True(t, s.Minimal)
					maxChecks := 20
					if noHint {
						maxChecks = 400
					}
					assert.LessOrEqual(t, s.Checks, maxChecks)
					again, err := check.Check(context.Background(), histories.FromOperations(s.Ops), check.Options{Policy: opts.Policy, Checker: check.Porcupine})
					require.NoError(t, err)
					assert.Equal(t, check.Violated, again.Verdict, "still invalid")
					if !noHint {
						require.NotNil(t, res.Minimal, "the run shrank it too")
						assert.Equal(t, s.OpIDs, res.Minimal.OpIDs)
					}
				})
			}
		}
	}
}

// TestTheSeedsKindShrinksToTwoWrites: a stale write accepted after the
// newer owner's write returned, found by a run against a receiver without
// fencing, shrinks to exactly those two writes. The policy accepts equal
// tokens, so that the owners' repeats are legal; the reads are left out,
// because a stale read is usually evidence that completes earlier and
// would be reported instead.
func TestTheSeedsKindShrinksToTwoWrites(t *testing.T) {
	t.Parallel()
	opts := check.Options{Policy: model.AcceptEqual}
	for _, seed := range []uint64{1, 2, 3} {
		_, full := bigRun(t, "unfenced", seed, 3000, opts.Policy)
		var writes []histories.Operation
		for _, op := range full.Expand(nil) {
			if op.IsWrite() {
				writes = append(writes, op)
			}
		}
		o := opts
		o.Checker = check.Porcupine
		checked, err := check.Check(context.Background(), histories.FromOperations(writes), o)
		require.NoError(t, err)
		res := explain.Explain(writes, checked, o)
		require.NotEmpty(t, res.Violations, "seed %d", seed)
		v := res.Violations[0]
		require.Equal(t, explain.RuleStaleAccepted, v.Rule, "seed %d: %s", seed, v.Summary)
		s, ok, err := explain.Shrink(context.Background(), writes, full.Others, v, opts, explain.DefaultShrinkOptions())
		require.NoError(t, err)
		require.True(t, ok)
		t.Logf("seed %d: %d writes → %d: %s", seed, len(writes), len(s.Ops), s.Violation.Summary)
		require.Len(t, s.Ops, 2, "the newer accepted write and the stale accepted write")
		assert.Greater(t, s.Ops[0].Token, s.Ops[1].Token)
		assert.Equal(t, histories.StatusAccepted, s.Ops[1].Status)
		assert.Less(t, s.Ops[0].Return, s.Ops[1].Call, "the newer write had returned before the stale one was sent")
	}
}
