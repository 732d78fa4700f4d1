package main

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/fencecheck/fencecheck/explore"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/redact"
	leasespec "github.com/fencecheck/fencecheck/lease/spec"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
)

// sweepOnly are sweep's own flags, which the line that repeats one of its
// runs (fencecheck run) leaves out.
var sweepOnly = []string{"seeds", "parallel", "keep-going", "budget", "swarm", "calibrate", "confidence"}

type sweepFlags struct {
	run                               runFlags
	seeds                             string
	parallel                          int
	budget                            time.Duration
	confidence                        float64
	keepGoing, swarm                  bool
	seedsSet, parallelSet, nemesisSet bool // given
}

func newSweepCommand() *cobra.Command {
	var f sweepFlags
	cmd := &cobra.Command{
		Use:   "sweep --target SPEC --seeds A-B",
		Short: "Run one configuration once per seed, stop at the first seed that violates, and print the line that repeats it",
		Long:  help("sweep"),
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.run.noteChanged(cmd)
			fl := cmd.Flags()
			f.seedsSet, f.parallelSet, f.nemesisSet = fl.Changed("seeds"), fl.Changed("parallel"), fl.Changed("nemesis")
			return f.run.target.scrub(runSweep(cmd.Context(), cmd, f))
		},
	}
	fl := cmd.Flags()
	f.run.register(fl, cmdSweep)
	d := explore.DefaultOptions()
	fl.StringVar(&f.seeds, "seeds", d.Seeds.String(), "the seeds to run: A-B (A to B, both included) or N (1 to N); with --budget and no --seeds, as many as the budget allows")
	fl.IntVar(&f.parallel, "parallel", 0, "runs at once (default: one per processor for memory targets in the simulation, else 1)")
	fl.BoolVar(&f.keepGoing, "keep-going", false, "run every seed instead of stopping at the first that violates")
	fl.DurationVar(&f.budget, "budget", 0, "stop starting runs after this much wall time (0: no limit)")
	fl.Float64Var(&f.confidence, "confidence", 0, "calibrate (--calibrate), then run as many seeds as every twin needs to be caught with this probability, at most --seeds, and stop (see docs/exploration.md)")
	fl.BoolVar(&f.swarm, "swarm", false, "each seed draws its own faults, workers, resources, lease TTL, think time, read share and tokens (see docs/exploration.md)")
	return cmd
}

func runSweep(ctx context.Context, cmd *cobra.Command, f sweepFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := f.run.target.required(); err != nil {
		return err
	}
	// The flags every run would refuse are refused once, before any.
	if _, _, err := f.run.faults(); err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	if f.run.calibrate > 0 || f.confidence > 0 {
		runs := f.run.calibrate
		if runs <= 0 {
			runs = explore.DefaultCalibrationRuns
		}
		c, stop, err := f.run.calibration(cmd, runs, f.confidence)
		if err != nil {
			return err
		}
		defer stop()
		opts.Calibrate = c
	}
	if os.Getenv("GOGC") == "" {
		// A run in the simulation allocates about 4 MB and keeps little
		// of it; collecting a quarter as often saves a quarter of a
		// sweep's time (docs/performance.md), for a few MB more.
		debug.SetGCPercent(400)
	}
	if !f.run.noProgress && !f.run.json && isTerminal(stderr) {
		var stop func()
		opts.Progress, stop = progressLine[explore.Progress](stderr)
		defer stop()
	}
	var warnMu sync.Mutex
	res, err := explore.SweepFunc(ctx, func(ctx context.Context, tr explore.Trial) (harness.Result, error) {
		g := f.run
		g.seed = tr.Seed
		if tr.Draw != nil {
			g.apply(*tr.Draw)
		}
		res, err := runOnce(ctx, cmd, g, once{keep: harness.KeepViolations, command: func(cfg harness.Config) string {
			e := effectiveRunFlags(cfg, g)
			if tr.Draw != nil {
				e["think"], e["read-share"] = cfg.Workload.Think.String(), fmt.Sprint(cfg.Workload.ReadShare)
			}
			return flagLine("run", cmd.Flags(), e, sweepOnly, []string{"seed"})
		}})
		if len(res.Warnings) > 0 {
			warnMu.Lock()
			warn(stderr, res.Warnings)
			warnMu.Unlock()
		}
		return res, err
	}, opts)
	if err != nil {
		if res.Runs > 0 {
			fmt.Fprint(stdout, res.Summary())
		}
		return err
	}
	if err := printResult(stdout, f.run.json, res, res.Summary); err != nil {
		return err
	}
	return exitFor(res.Verdict)
}

// options are the sweep's options from its flags.
func (f *sweepFlags) options() (explore.Options, error) {
	o := explore.DefaultOptions()
	var err error
	switch {
	case f.seedsSet || f.budget == 0:
		if o.Seeds, err = explore.ParseSeeds(f.seeds); err != nil {
			return o, &usageError{fmt.Errorf("--seeds: %w", err)}
		}
	default:
		o.Seeds = explore.Unbounded() // the budget ends it
	}
	if f.budget < 0 {
		return o, &usageError{fmt.Errorf("--budget: must not be negative")}
	}
	o.Budget, o.KeepGoing, o.Swarm = f.budget, f.keepGoing, f.swarm
	shared := explore.Shared{Simulated: f.simulated(), ReceiverProcess: f.run.target.exec.command != "", FixedResources: f.run.naming().Fixed(), Shard: f.run.shard != ""}
	o.Parallel = shared.Parallel()
	if f.parallelSet {
		if f.parallel < 1 {
			return o, &usageError{fmt.Errorf("--parallel: %d: at least one run must go at a time", f.parallel)}
		}
		o.Parallel = f.parallel
	}
	if err := shared.Refuse(o.Parallel, sweepWords); err != nil {
		return o, &usageError{err}
	}
	o.Store, o.Name = f.run.store, f.run.name
	if o.Name == "" {
		o.Name = runstore.Name(redact.Spec(f.run.target.spec))
	}
	if f.swarm {
		if f.run.script != "" {
			return o, &usageError{fmt.Errorf("--swarm: a --nemesis-script names its faults, and a swarm draws them: give one of them")}
		}
		o.Space = explore.Space{FixedResources: f.run.naming().Fixed(), DenseTokens: f.run.leases != leasespec.Local}
		if f.nemesisSet {
			// The pool is checked as a whole before any draw uses it.
			faults, _, err := f.run.faults()
			if err != nil {
				return o, err
			}
			if len(faults) == 0 {
				return o, &usageError{fmt.Errorf("--swarm: --nemesis %q gives no fault to draw from", f.run.nemesis)}
			}
			o.Space.Faults = nemesis.NamesOf(faults)
		}
	}
	return o, nil
}

// simulated says whether the runs are in the deterministic simulation,
// as run makes them: a memory target on the run's own leases, without
// --realtime.
func (f *sweepFlags) simulated() bool {
	return strings.HasPrefix(f.run.target.spec, "memory://") && !f.run.realtime && f.run.leases == leasespec.Local
}

// sweepWords words explore.Shared's fields as sweep's flags.
func sweepWords(field string) string {
	return map[string]string{"Parallel": "--parallel", "ReceiverProcess": "--exec"}[field]
}

// apply sets a swarm's draw on the run's flags, as explicit flags would
// set it: the line that repeats the run then gives them.
func (f *runFlags) apply(d explore.Draw) {
	f.nemesis, f.workers, f.leaseTTL, f.readShare, f.tokens = strings.Join(d.Faults, ","), d.Workers, d.LeaseTTL, d.ReadShare, d.Tokens
	f.think, f.thinkSet = d.Think, true
	if d.Resources > 0 {
		f.resources, f.resourcesSet = d.Resources, true
	}
}
