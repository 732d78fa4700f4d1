package explore

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// memoryConfig is a short default run against a memory receiver in the
// simulation, and the options that give each run a receiver of its own.
func memoryConfig(t *testing.T, name string, seeds Seeds, parallel int) (harness.Config, Options) {
	t.Helper()
	cfg := harness.DefaultConfig()
	cfg.Target.Receiver, cfg.Target.Name, cfg.Runtime.Deterministic, cfg.Store.Dir = nil, "memory://"+name, true, schema.TempDir(t)
	cfg.Workload.Duration = 2 * time.Second
	opts := DefaultOptions()
	opts.Seeds, opts.Parallel = seeds, parallel
	opts.NewTarget = func() (targets.Target, error) { return memory.Open(name) }
	opts.Command = func(tr Trial) string { return "repeat " + name }
	return cfg, opts
}

// readLog reads the sweep's log.
func readLog(t *testing.T, dir string) []Entry {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Entry
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		out = append(out, e)
	}
	require.NoError(t, sc.Err())
	return out
}

// TestSweepFindsTheFirstFailingSeed: a sweep of a broken receiver stops
// at the lowest seed that violates, whether one run goes at a time or
// several; only that run is stored, with its minimal counterexample and
// the line that repeats it, and every seed run is a line of the log.
func TestSweepFindsTheFirstFailingSeed(t *testing.T) {
	t.Parallel()
	first := map[int]uint64{}
	for _, parallel := range []int{1, 3} {
		cfg, opts := memoryConfig(t, "check-then-set", Seeds{1, 200}, parallel)
		res, err := Sweep(context.Background(), cfg, opts)
		require.NoError(t, err)
		require.Equal(t, judge.Violated, res.Verdict, res.Reason)
		require.NotEmpty(t, res.Failures)
		f := res.Failures[0]
		first[parallel] = f.Seed
		assert.Equal(t, StoppedViolation, res.Stopped)
		assert.Equal(t, "deterministic", res.Mode)
		assert.Equal(t, f.Seed, f.Result.Config.Seed)
		assert.Equal(t, "repeat check-then-set", f.Result.Config.Command)
		require.NotNil(t, f.Result.Minimal, "the failing seed's minimal counterexample")
		assert.FileExists(t, filepath.Join(f.Result.Dir, runstore.History))
		log := readLog(t, res.Dir)
		assert.Len(t, log, res.Runs)
		seen := map[uint64]bool{}
		for _, e := range log {
			seen[e.Seed] = true
		}
		for s := uint64(1); s <= f.Seed; s++ {
			assert.True(t, seen[s], "seed %d, below the failing one, was run", s)
		}
		runs, err := os.ReadDir(filepath.Join(cfg.Store.Dir, "memory-check-then-set"))
		require.NoError(t, err)
		assert.Len(t, runs, res.Violated, "only the runs that violated are stored")
		assert.Contains(t, res.Summary(), "failing seed "+itoa(f.Seed))
		assert.Contains(t, res.Summary(), "reproduce   repeat check-then-set")
		if res.Totals.Runs == 0 {
			// Every seed run violated: no line may say that the sweep
			// exercised nothing.
			assert.NotContains(t, res.Summary(), "exercised   in ")
		} else {
			assert.Contains(t, res.Summary(), "checked runs with no violation: ")
		}
	}
	assert.Equal(t, first[1], first[3], "the first failing seed does not depend on the parallelism")
}

// TestSweepOfACorrectReceiverHolds: a sweep of the fenced receiver finds
// nothing, stores no run, logs every seed, and holds because its runs
// together exercised stale writes and every fault they had.
func TestSweepOfACorrectReceiverHolds(t *testing.T) {
	t.Parallel()
	cfg, opts := memoryConfig(t, "fenced", Seeds{1, 30}, 2)
	res, err := Sweep(context.Background(), cfg, opts)
	require.NoError(t, err)
	require.Equal(t, judge.Held, res.Verdict, res.Reason)
	assert.Equal(t, 30, res.Runs)
	assert.Equal(t, 30, res.Held+res.Inconclusive)
	assert.Empty(t, res.Stopped)
	assert.Positive(t, res.Totals.StaleRejected)
	assert.Zero(t, res.Totals.StaleAccepted)
	assert.Positive(t, res.Totals.FaultActions["pause"])
	assert.Len(t, readLog(t, res.Dir), 30)
	assert.Contains(t, res.Summary(), fmt.Sprintf("exercised   in %d checked runs with no violation: %d operations", res.Totals.Runs, res.Totals.Operations))
	_, err = os.Stat(filepath.Join(cfg.Store.Dir, "memory-fenced"))
	assert.True(t, os.IsNotExist(err), "no run stored")
	for _, f := range []string{runstore.Result, runstore.Summary} {
		assert.FileExists(t, filepath.Join(res.Dir, f))
	}
}

// TestSweepSwarm: in a swarm each seed runs with its draw, which its log
// line and, for a failing seed, its result carry.
func TestSweepSwarm(t *testing.T) {
	t.Parallel()
	cfg, opts := memoryConfig(t, "check-then-set", Seeds{1, 100}, 2)
	opts.Swarm = true
	res, err := Sweep(context.Background(), cfg, opts)
	require.NoError(t, err)
	require.Equal(t, judge.Violated, res.Verdict, res.Reason)
	f := res.Failures[0]
	require.NotNil(t, f.Draw)
	assert.Equal(t, DrawSwarm(f.Seed, Space{}), *f.Draw)
	rc := f.Result.Config
	assert.Equal(t, f.Draw.Faults, rc.Faults)
	assert.Equal(t, f.Draw.Workers, rc.Workers)
	assert.Equal(t, f.Draw.LeaseTTL.String(), rc.LeaseTTL)
	assert.Equal(t, f.Draw.Tokens, rc.Tokens)
	for _, e := range readLog(t, res.Dir) {
		require.NotNil(t, e.Draw)
		assert.Equal(t, DrawSwarm(e.Seed, Space{}), *e.Draw)
	}
	assert.Contains(t, res.Summary(), "swarm       "+f.Draw.String())
}

// TestSweepRefusesSharedState: runs that name their resources from their
// seed may not share a receiver, and no runs one lease service.
func TestSweepRefusesSharedState(t *testing.T) {
	t.Parallel()
	cfg, opts := memoryConfig(t, "fenced", Seeds{1, 2}, 1)
	cfg.Target.Receiver, opts.NewTarget = memory.NewFenced(), nil
	_, err := Sweep(context.Background(), cfg, opts)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NewTarget")

	cfg, opts = memoryConfig(t, "fenced", Seeds{1, 2}, 1)
	cfg.Runtime.Deterministic, cfg.Leases.Service = false, lease.NewLocal(context.Background(), sched.NewReal(), nil, time.Second)
	_, err = Sweep(context.Background(), cfg, opts)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Issuer")
}

func itoa(n uint64) string { b, _ := json.Marshal(n); return string(b) }

// fake is a run's result as a RunFunc returns it.
func fake(v judge.Verdict, gate judge.Gate, stale int, actions map[string]int, faults ...string) harness.Result {
	minStale := 0
	if len(faults) > 0 && faults[0] == "pause" {
		minStale = 1
	}
	res := harness.Result{Config: harness.RunConfig{Target: "fake://", Faults: faults, MinStale: minStale}}
	res.Verdict, res.Gate, res.Reason = v, gate, string(v)+" for a reason"
	res.Coverage = judge.Coverage{StaleWrites: stale, StaleRejected: stale, FaultActions: actions}
	return res
}

// TestSweepVerdict: the rules that judge the seeds together.
func TestSweepVerdict(t *testing.T) {
	t.Parallel()
	pauseActs := map[string]int{"pause": 3}
	cases := []struct {
		name   string
		run    func(seed uint64) harness.Result
		want   judge.Verdict
		reason string
	}{
		{"every seed held and exercised its faults", func(uint64) harness.Result {
			return fake(judge.Held, judge.GateCheck, 2, pauseActs, "pause")
		}, judge.Held, "no violation in 6 runs, which together exercised 12 stale writes (12 rejected) and every fault they had (pause 18)"},
		{"a seed violated", func(s uint64) harness.Result {
			if s == 4 {
				return fake(judge.Violated, judge.GateCheck, 2, pauseActs, "pause")
			}
			return fake(judge.Held, judge.GateCheck, 2, pauseActs, "pause")
		}, judge.Violated, "seed 4: violated for a reason"},
		{"seeds short of stale writes count with the others", func(s uint64) harness.Result {
			if s%2 == 0 {
				return fake(judge.Inconclusive, judge.GateMinStale, 0, pauseActs, "pause")
			}
			return fake(judge.Held, judge.GateCheck, 1, pauseActs, "pause")
		}, judge.Held, "no violation in 6 runs, which together exercised 3 stale writes (3 rejected) and every fault they had (pause 18)"},
		{"no seed held", func(uint64) harness.Result {
			return fake(judge.Inconclusive, judge.GateEvidence, 0, nil, "pause")
		}, judge.Inconclusive, "no seed held: all 6 runs were inconclusive (evidence 6)"},
		{"a fault never acted", func(uint64) harness.Result {
			return fake(judge.Held, judge.GateCheck, 1, pauseActs, "pause", "expire")
		}, judge.Inconclusive, "no seed violated, but expire never acted in the 6 checked runs that had it"},
		{"no stale write in all", func(uint64) harness.Result {
			r := fake(judge.Held, judge.GateCheck, 0, pauseActs, "pause")
			r.Config.MinStale = 0
			if r.Config.Faults[0] == "pause" {
				r.Config.MinStale = 1
				r.Verdict, r.Gate = judge.Inconclusive, judge.GateMinStale
			}
			return r
		}, judge.Inconclusive, "no seed held: all 6 runs were inconclusive (min-stale 6)"},
		{"a check that gave up does not count", func(s uint64) harness.Result {
			if s == 1 {
				return fake(judge.Held, judge.GateCheck, 0, map[string]int{}, "pause")
			}
			return fake(judge.Inconclusive, judge.GateCheck, 5, pauseActs, "pause")
		}, judge.Inconclusive, "no seed violated, but pause never acted in the 1 checked run that had it; 0 stale writes were submitted in all, and a run asks for at least 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := DefaultOptions()
			opts.Seeds, opts.Parallel, opts.KeepGoing = Seeds{1, 6}, 2, true
			res, err := SweepFunc(context.Background(), func(_ context.Context, tr Trial) (harness.Result, error) {
				return tc.run(tr.Seed), nil
			}, opts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Verdict)
			assert.Equal(t, tc.reason, res.Reason)
			assert.Equal(t, 6, res.Runs)
		})
	}
}

// TestSweepStops: an error ends the sweep with its seed; a cancelled
// context interrupts it; a budget that has run out starts no run.
func TestSweepStops(t *testing.T) {
	t.Parallel()
	held := fake(judge.Held, judge.GateCheck, 1, map[string]int{"pause": 1}, "pause")
	t.Run("error", func(t *testing.T) {
		t.Parallel()
		opts := DefaultOptions()
		opts.Seeds, opts.Parallel = Seeds{1, 50}, 1
		broken := errors.New("unreachable")
		res, err := SweepFunc(context.Background(), func(_ context.Context, tr Trial) (harness.Result, error) {
			if tr.Seed == 3 {
				return harness.Result{}, broken
			}
			return held, nil
		}, opts)
		require.ErrorIs(t, err, broken)
		assert.Contains(t, err.Error(), "seed 3: ")
		assert.Equal(t, 2, res.Runs)
	})
	t.Run("interrupted", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		opts := DefaultOptions()
		opts.Seeds, opts.Parallel = Seeds{1, 50}, 1
		res, err := SweepFunc(ctx, func(_ context.Context, tr Trial) (harness.Result, error) {
			if tr.Seed == 5 {
				cancel()
			}
			return held, nil
		}, opts)
		require.NoError(t, err)
		assert.Equal(t, StoppedInterrupted, res.Stopped)
		assert.Equal(t, 5, res.Runs)
		assert.Equal(t, judge.Inconclusive, res.Verdict)
	})
	t.Run("budget", func(t *testing.T) {
		t.Parallel()
		opts := DefaultOptions()
		opts.Seeds, opts.Parallel, opts.Budget = Unbounded(), 2, time.Hour
		var runs atomic.Int64
		opts.since = func(time.Time) time.Duration {
			if runs.Load() >= 7 {
				return time.Hour
			}
			return 0
		}
		res, err := SweepFunc(context.Background(), func(_ context.Context, tr Trial) (harness.Result, error) {
			runs.Add(1)
			return held, nil
		}, opts)
		require.NoError(t, err)
		assert.Equal(t, StoppedBudget, res.Stopped)
		assert.GreaterOrEqual(t, res.Runs, 7)
		assert.Equal(t, judge.Held, res.Verdict, res.Reason)
	})
}
