package fencetest

import (
	"context"
	"runtime"
	"time"

	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/targets"
)

// SweepOptions say how Sweep sweeps. The zero value runs one seed at a
// time on cfg's clock and stops at the first violation.
type SweepOptions struct {
	// Synctest runs each seed's run in a testing/synctest bubble of its
	// own (see Options.Synctest and RunSynctest).
	Synctest bool
	// Parallel is how many runs go at once; 0, one per processor for
	// runs in the simulation or in bubbles, else one.
	Parallel int
	// KeepGoing runs every seed instead of stopping at the first that
	// violates.
	KeepGoing bool
	// Swarm makes each seed draw its own faults, workers, resources,
	// lease TTL, think time, read share and tokens (explore.DrawSwarm),
	// from the nemesis package's faults.
	Swarm bool
	// Budget stops starting runs after this much wall time; 0: none.
	Budget time.Duration
	// NewTarget gives each run a receiver of its own, as a run in the
	// simulation or in a bubble needs (its resources are named from its
	// seed): for an http.Handler, HandlerTarget(newHandler(), opts). nil,
	// every run uses cfg.Target.Receiver, which only a real-time run may share.
	NewTarget func() (targets.Target, error)
}

// Sweep runs cfg once per seed of seeds (explore.Sweep), each run stored
// only when it violates, and fails t unless the sweep held: no seed
// violated, and the runs together exercised the hazards of their faults
// (single inconclusive seeds are counted and logged, not failures). A
// failing sweep reports its first failing seed with its explanation and
// minimal counterexample, and the go test line that repeats that seed's
// run alone: -fencetest.seed=N makes Sweep run seed N only, with the
// configuration it drew in a swarm. It returns the sweep's result.
//
// The faults are made afresh for every run from the names of cfg.Faults
// (or drawn), so only the nemesis package's own faults can be swept
// here. $FENCETEST_LEASES applies as in Run.
func Sweep(t T, cfg harness.Config, seeds explore.Seeds, opts SweepOptions) explore.Result {
	t.Helper()
	bubbled := opts.Synctest
	env, ok := envLeases(t, &cfg, &bubbled)
	if !ok {
		return explore.Result{}
	}
	if seed, ok := seedOverride(); ok {
		seeds = explore.Seeds{First: seed, Last: seed}
	}
	o := explore.DefaultOptions()
	o.Seeds, o.KeepGoing, o.Swarm, o.Budget, o.NewTarget = seeds, opts.KeepGoing, opts.Swarm, opts.Budget, opts.NewTarget
	o.Parallel = opts.Parallel
	if o.Parallel == 0 {
		o.Parallel = 1
		if cfg.Runtime.Deterministic || bubbled {
			o.Parallel = runtime.GOMAXPROCS(0)
		}
	}
	o.Command = func(tr explore.Trial) string { return env + reproduceLine(t.Name(), tr.Seed) }
	if bubbled {
		cfg.Runtime.VirtualClock = true
		if cfg.Runtime.Started.IsZero() {
			cfg.Runtime.Started = time.Now()
		}
		o.Runner = func(_ context.Context, c harness.Config) (harness.Result, error) { return runInBubble(t, c) }
	}
	res, err := explore.Sweep(t.Context(), cfg, o)
	if err != nil {
		t.Fatalf("fencetest: sweep of %s: %v", cfg.Target.Name, err)
		return res
	}
	where := ""
	if res.Dir != "" {
		where = "; the sweep's log is in " + res.Dir
	}
	if res.Verdict == judge.Held {
		t.Logf("fencetest: sweep of %s held: %s (%d inconclusive seeds)%s", cfg.Target.Name, res.Reason, res.Inconclusive, where)
		return res
	}
	t.Errorf("fencetest: sweep of %s %s%s\n%s", cfg.Target.Name, res.Verdict, where, res.Summary())
	return res
}
