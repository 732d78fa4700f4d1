package explore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// fixRun makes a comparison's run against a fresh memory receiver in the
// simulation, with seed 7.
func fixRun(t *testing.T, name string) FixRun {
	store := schema.TempDir(t)
	return func(ctx context.Context, s workload.Strategy) (harness.Result, error) {
		tgt, err := memory.Open(name)
		require.NoError(t, err)
		cfg := harness.DefaultConfig()
		cfg.Target.Receiver, cfg.Target.Name, cfg.Runtime.Deterministic, cfg.Store.Dir, cfg.Runtime.Seed = tgt, "memory://"+name, true, store, 7
		cfg.Workload.Duration, cfg.Workload.Strategy = 2*time.Second, s
		return harness.Run(ctx, cfg)
	}
}

// TestCompareFixesOnAFencedReceiver: every strategy runs the same
// workload, fencing last; against a receiver that fences, only fencing
// holds, since the others send no token to reject; the table is the
// same for the same seed.
func TestCompareFixesOnAFencedReceiver(t *testing.T) {
	t.Parallel()
	table, err := CompareFixes(context.Background(), fixRun(t, "fenced"))
	require.NoError(t, err)
	require.Len(t, table.Rows, len(workload.Strategies()))
	last := table.Rows[len(table.Rows)-1]
	assert.Equal(t, "fencing", last.Strategy)
	assert.Equal(t, judge.Held, last.Verdict, last.Reason)
	assert.Zero(t, last.StaleAccepted)
	violated := 0
	for _, r := range table.Rows[:len(table.Rows)-1] {
		if r.Verdict == judge.Violated {
			violated++
			assert.Positive(t, r.StaleAccepted, r.Strategy)
		}
	}
	assert.Positive(t, violated, "a fix without a token lets a stale write through")
	assert.True(t, table.Deterministic)
	assert.Equal(t, uint64(7), table.Seed)

	text := table.Summary()
	assert.Contains(t, text, "deterministic: the same seed prints the same table")
	assert.Contains(t, text, "workload    8 workers, 4 resources, 2s, lease TTL 100ms, nemesis pause,delay, the same for every strategy")
	again, err := CompareFixes(context.Background(), fixRun(t, "fenced"))
	require.NoError(t, err)
	for i := range again.Rows {
		again.Rows[i].Dir, table.Rows[i].Dir = "", ""
	}
	assert.Equal(t, table, again, "the same seed, the same table")
}

// TestCompareFixesStopsAtARunThatFailed: a strategy whose run could not
// be made ends the comparison, named.
func TestCompareFixesStopsAtARunThatFailed(t *testing.T) {
	t.Parallel()
	_, err := CompareFixes(context.Background(), func(ctx context.Context, s workload.Strategy) (harness.Result, error) {
		if s == workload.Renew {
			return harness.Result{}, errors.New("no renewals here")
		}
		return harness.Result{}, nil
	})
	assert.EqualError(t, err, "the renew run: no renewals here")
}
