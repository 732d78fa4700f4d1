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
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
	"github.com/fencecheck/fencecheck/workload"
)

// fixRun makes a comparison's run against a fresh memory receiver in the
// simulation, with seed 7; wrap, when not nil, wraps the receiver.
func fixRun(t *testing.T, name string, wrap func(targets.Target) targets.Target) FixRun {
	store := schema.TempDir(t)
	return func(ctx context.Context, s workload.Strategy) (harness.Result, error) {
		var tgt targets.Target
		tgt, err := memory.Open(name)
		require.NoError(t, err)
		if wrap != nil {
			tgt = wrap(tgt)
		}
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
	table, err := CompareFixes(context.Background(), fixRun(t, "fenced", nil))
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
	again, err := CompareFixes(context.Background(), fixRun(t, "fenced", nil))
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

// tokenOnly is a receiver that takes no write without a token: the
// target's other capabilities are hidden with it.
type tokenOnly struct{ targets.Target }

// TestCompareFixesOnAReceiverThatNeedsAToken: a receiver that cannot
// write without a token cannot run the fixes that send none; their rows
// say so and why, and fencing's row stands.
func TestCompareFixesOnAReceiverThatNeedsAToken(t *testing.T) {
	t.Parallel()
	table, err := CompareFixes(context.Background(), fixRun(t, "fenced", func(tgt targets.Target) targets.Target { return tokenOnly{tgt} }))
	require.NoError(t, err)
	require.Len(t, table.Rows, len(workload.Strategies()))
	for _, r := range table.Rows {
		if r.Strategy == "fencing" {
			assert.Equal(t, judge.Held, r.Verdict, r.Reason)
			assert.Empty(t, r.NotRun)
			continue
		}
		fences := false
		for _, s := range workload.Strategies() {
			fences = fences || (s.String() == r.Strategy && s.Fences())
		}
		if !fences {
			assert.Contains(t, r.NotRun, "writes without a token, and memory://fenced cannot", r.Strategy)
			assert.Equal(t, "not run", r.verdict())
		}
	}
	assert.Contains(t, table.Summary(), "not run: ")
}

// TestCompareFixesUnderClientClockSkew: a client whose clock runs behind
// the issuer's believes its lease has more time left than it has. The
// renewing client times its renewals by that clock, so its leases run
// out between renewals and its stale writes go up with the skew; the
// check-before-write client asks the issuer, whose clock answers; and
// fencing lets no stale write through at any skew, whatever the clocks
// say, since the receiver judges the token. The runs are deterministic:
// the skew is an offset, not a timer.
func TestCompareFixesUnderClientClockSkew(t *testing.T) {
	t.Parallel()
	skews := []time.Duration{0, 200 * time.Millisecond, time.Second}
	stale := map[string][]int{}
	for _, skew := range skews {
		table, err := CompareFixes(context.Background(), skewedFixRun(t, skew))
		require.NoError(t, err)
		t.Logf("--clock-skew %v\n%s", skew, table.Summary())
		for _, r := range table.Rows {
			stale[r.Strategy] = append(stale[r.Strategy], r.StaleAccepted)
			if r.Strategy == workload.Fencing.String() {
				assert.Zero(t, r.StaleAccepted, "fencing at skew %v", skew)
				assert.Equal(t, judge.Held, r.Verdict, "fencing at skew %v: %s", skew, r.Reason)
			}
		}
		again, err := CompareFixes(context.Background(), skewedFixRun(t, skew))
		require.NoError(t, err)
		for i := range again.Rows {
			again.Rows[i].Dir, table.Rows[i].Dir = "", ""
		}
		assert.Equal(t, table, again, "the same seed and skew, the same table")
	}
	t.Logf("stale writes accepted at skews %v: renew %v, check-before-write %v, fencing %v", skews,
		stale["renew"], stale["check-before-write"], stale["fencing"])
	renew := stale[workload.Renew.String()]
	assert.Greater(t, renew[len(renew)-1], renew[0], "a renewing client whose clock runs a lease behind renews too late")
	// The other strategies read no clock: their runs are those of clocks
	// that agree, byte for byte.
	for _, s := range []workload.Strategy{workload.None, workload.CheckBeforeWrite, workload.Fencing} {
		got := stale[s.String()]
		assert.Equal(t, []int{got[0], got[0], got[0]}, got, s.String())
	}
}

// skewedFixRun is fixRun against the fenced memory receiver with the
// workers' clocks skew behind the issuer's.
func skewedFixRun(t *testing.T, skew time.Duration) FixRun {
	store := schema.TempDir(t)
	return func(ctx context.Context, s workload.Strategy) (harness.Result, error) {
		tgt, err := memory.Open("fenced")
		require.NoError(t, err)
		cfg := harness.DefaultConfig()
		cfg.Target.Receiver, cfg.Target.Name, cfg.Runtime.Deterministic, cfg.Store.Dir, cfg.Runtime.Seed = tgt, "memory://fenced", true, store, 7
		cfg.Workload.Duration, cfg.Workload.Strategy, cfg.Workload.ClockSkew = 5*time.Second, s, skew // docs/fixes.md's table
		return harness.Run(ctx, cfg)
	}
}
