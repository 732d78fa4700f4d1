package explore

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/internal/tick"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
)

// Options say how to sweep. DefaultOptions gives the defaults; a zero
// field means zero.
type Options struct {
	Seeds Seeds
	// Parallel is how many runs go at once. Runs in the deterministic
	// simulation share nothing and may use every processor; runs on the
	// real clock against one receiver disturb each other's timing, and
	// each must then be able to have a receiver of its own or share one
	// on resources of its own (harness/resources.go).
	Parallel int
	// KeepGoing runs every seed instead of stopping at the first that
	// violates.
	KeepGoing bool
	// Budget stops the sweep from starting runs once this much wall time
	// has passed; 0: no limit. Runs under way finish.
	Budget time.Duration
	// Swarm makes each seed draw its configuration from Space
	// (DrawSwarm).
	Swarm bool
	Space Space
	// Store is the run store: the sweep's directory,
	// <Store>/<Name>-sweep/<time>/, holds its log (sweep.jsonl), its
	// result.json and summary.txt; empty, the sweep writes none. The runs
	// store themselves (harness.KeepViolations).
	Store string
	Name  string
	// Progress, if set, is called about four times a second while the
	// sweep runs, from a goroutine of its own.
	Progress func(Progress)

	// NewTarget gives each run of Sweep a receiver of its own. nil, every
	// run uses the configuration's Target, and since a run in the
	// simulation or on a virtual clock names its resources from its seed,
	// such runs then need a NewTarget (see Sweep).
	NewTarget func() (targets.Target, error)
	// Command is the line that repeats a trial's run, for Sweep
	// (harness.Config.Command); nil, none.
	Command func(Trial) string
	// Runner makes each run of Sweep from its configuration; nil,
	// harness.Run. fencetest gives one that runs it in a
	// testing/synctest bubble.
	Runner func(context.Context, harness.Config) (harness.Result, error)

	// Calibrate, if set, runs twins of the target with planted bugs
	// first, and says how likely the sweep was to catch each
	// (Result.Calibration); with a Confidence it chooses the seeds.
	Calibrate *Calibrate

	// since is time.Since, for the budget; tests replace it.
	since func(time.Time) time.Duration
	_     struct{} // keyed fields only: the struct may grow
}

// DefaultOptions are seeds 1 to 100, one run per processor, stopping at
// the first violation, without a budget or a swarm.
func DefaultOptions() Options {
	return Options{Seeds: Seeds{First: 1, Last: 100}, Parallel: runtime.GOMAXPROCS(0)}
}

// Trial is one seed of a sweep.
type Trial struct {
	Seed uint64
	// Draw is what the seed drew (Options.Swarm); nil without a swarm.
	Draw *Draw
}

// RunFunc makes the run of one trial: the sweep's configuration with the
// trial's seed and draw, stored only if it violates
// (harness.KeepViolations), with a receiver no other run in progress
// uses, or resources of its own on a shared one. It is called from
// Options.Parallel goroutines at once. An error ends the sweep.
type RunFunc func(ctx context.Context, tr Trial) (harness.Result, error)

// Progress is a snapshot of a sweep in progress (Options.Progress).
type Progress struct {
	Done, Held, Violated, Inconclusive int
	// Total is the number of seeds; 0 when the range is unbounded.
	Total   uint64
	Elapsed time.Duration
}

// String words the progress as a sweep's live status line shows it: the
// seeds done of how many, the runs per second, the seeds that violated
// and were inconclusive, the time.
func (p Progress) String() string {
	total := "…"
	if p.Total > 0 {
		total = fmt.Sprint(p.Total)
	}
	rate := 0.0
	if p.Elapsed > 0 {
		rate = float64(p.Done) / p.Elapsed.Seconds()
	}
	return fmt.Sprintf("seeds %d/%s  %.0f runs/s  violated %d  inconclusive %d  %v",
		p.Done, total, rate, p.Violated, p.Inconclusive, p.Elapsed.Round(time.Second))
}

// Sweep runs cfg once per seed of opts.Seeds: cfg with the seed, and in a
// swarm the seed's draw, against a target from opts.NewTarget, with the
// faults made afresh by name for every run (faults keep state: a run's
// may not be another's), stored only if it violates. Faults other than
// the nemesis package's own (nemesis.Parse), such as a proxy's, need
// SweepFunc and a RunFunc that makes them.
//
// A run in the simulation or on a virtual clock (cfg.Deterministic,
// cfg.VirtualClock) names its resources from its seed; without
// opts.NewTarget runs would share cfg.Target.Receiver, and so Sweep refuses
// that. On the real clock they may share it, one at a time unless
// opts.Parallel says otherwise. A lease service given in cfg.Leases.Service would
// be shared by every run and is refused; cfg.Issuer is opened by each.
func Sweep(ctx context.Context, cfg harness.Config, opts Options) (Result, error) {
	if cfg.Leases.Service != nil {
		return Result{}, errors.New("explore: a lease service in Leases would serve every run of the sweep; give Issuer, which each run opens for itself")
	}
	if opts.NewTarget == nil && (cfg.Runtime.Deterministic || cfg.Runtime.VirtualClock) {
		return Result{}, errors.New("explore: runs in the simulation or on a virtual clock name their resources from their seed, and need a target each (Options.NewTarget)")
	}
	if opts.Store == "" {
		opts.Store = cfg.Store.Dir
	}
	if opts.Name == "" {
		opts.Name = cfg.Store.RunName
		if opts.Name == "" {
			opts.Name = runstore.Name(cfg.Target.Name)
		}
	}
	names := make([]string, len(cfg.Nemesis.Faults))
	for i, f := range cfg.Nemesis.Faults {
		names[i] = f.Name()
	}
	return SweepFunc(ctx, func(ctx context.Context, tr Trial) (harness.Result, error) {
		c := cfg
		c.Runtime.Seed, c.Store.Keep = tr.Seed, harness.KeepViolations
		faults, err := nemesis.Parse(strings.Join(names, ","))
		if tr.Draw != nil {
			faults, err = nemesis.Parse(strings.Join(tr.Draw.Faults, ","))
		}
		if err != nil {
			return harness.Result{}, fmt.Errorf("explore: make the faults afresh: %w", err)
		}
		c.Nemesis.Faults = faults
		if tr.Draw != nil {
			if err := tr.Draw.Apply(&c, faults); err != nil {
				return harness.Result{}, err
			}
		}
		if opts.NewTarget != nil {
			if c.Target.Receiver, err = opts.NewTarget(); err != nil {
				return harness.Result{}, fmt.Errorf("explore: a target for seed %d: %w", tr.Seed, err)
			}
		}
		if opts.Command != nil {
			c.Output.Command = opts.Command(tr)
		}
		if opts.Runner != nil {
			return opts.Runner(ctx, c)
		}
		return harness.Run(ctx, c)
	}, opts)
}

// SweepFunc runs run once per seed of opts.Seeds, opts.Parallel at a
// time, in seed order, and judges the runs together (Result.decide). It
// stops at the first violation unless opts.KeepGoing, letting the runs
// under way finish, so that every seed below the lowest that violated
// has run: the failure it reports is the first in seed order, whatever
// the parallelism. An error from run ends the sweep too, and is returned
// with the seed, beside the Result so far.
func SweepFunc(ctx context.Context, run RunFunc, opts Options) (Result, error) {
	if err := opts.Seeds.Validate(); err != nil {
		return Result{}, fmt.Errorf("explore: %w", err)
	}
	if opts.Parallel < 1 {
		return Result{}, fmt.Errorf("explore: Parallel %d: at least one run must go at a time", opts.Parallel)
	}
	if opts.Budget < 0 {
		return Result{}, errors.New("explore: Budget: negative")
	}
	if opts.since == nil {
		opts.since = time.Since
	}
	began := time.Now()
	var cal *judge.Calibration
	if opts.Calibrate != nil {
		var left func() time.Duration
		if opts.Budget > 0 {
			left = func() time.Duration { return opts.Budget - opts.since(began) }
		}
		var err error
		if cal, err = plan(ctx, &opts, left); err != nil {
			return Result{}, err
		}
	}
	s := &sweep{opts: opts, run: run, next: opts.Seeds.First, began: began, cal: cal}
	s.res = Result{Seeds: opts.Seeds, Swarm: opts.Swarm, Parallel: opts.Parallel, ByGate: byGate{}}
	if opts.Store != "" {
		log, err := createLog(opts.Store, opts.Name, s.began)
		if err != nil {
			return Result{}, err
		}
		s.log, s.res.Dir = log, log.dir
	}
	stopProgress := s.reportProgress()
	var wg sync.WaitGroup
	for range opts.Parallel {
		wg.Go(func() { s.work(ctx) })
	}
	wg.Wait()
	stopProgress()
	return s.finish(ctx)
}

// sweep is the state of one sweep, shared by its workers under mu.
type sweep struct {
	opts  Options
	run   RunFunc
	began time.Time
	log   *sweepLog
	cal   *judge.Calibration // the twins' measure, or nil

	mu        sync.Mutex
	next      uint64
	exhausted bool
	stop      bool
	res       Result
	err       error
	errSeed   uint64
}

// claim returns the next seed to run, or false when the sweep is over.
func (s *sweep) claim(ctx context.Context) (uint64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.stop || s.exhausted:
		return 0, false
	case ctx.Err() != nil:
		s.stopFor(StoppedInterrupted)
		return 0, false
	case s.opts.Budget > 0 && s.opts.since(s.began) >= s.opts.Budget:
		s.stopFor(StoppedBudget)
		return 0, false
	}
	seed := s.next
	if seed == s.opts.Seeds.Last {
		s.exhausted = true
	} else {
		s.next++
	}
	return seed, true
}

// stopFor stops the sweep for why, unless it was stopped already.
func (s *sweep) stopFor(why string) {
	if !s.stop {
		s.stop, s.res.Stopped = true, why
	}
}

// work runs seeds until the sweep is over.
func (s *sweep) work(ctx context.Context) {
	for {
		seed, ok := s.claim(ctx)
		if !ok {
			return
		}
		tr := Trial{Seed: seed}
		if s.opts.Swarm {
			d := DrawSwarm(seed, s.opts.Space)
			tr.Draw = &d
		}
		res, err := s.run(ctx, tr)
		s.record(ctx, tr, &res, err)
	}
}

// record adds a trial's run to the sweep.
func (s *sweep) record(ctx context.Context, tr Trial, res *harness.Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.err == nil || tr.Seed < s.errSeed {
			s.err, s.errSeed = err, tr.Seed
		}
		s.stopFor("error")
		return
	}
	r := &s.res
	if r.Runs == 0 {
		r.Target, r.Mode = res.Config.Target, res.Config.Clock()
	}
	r.Runs++
	e := entryOf(tr, res)
	switch {
	case e.interrupted && res.Verdict != judge.Violated:
		r.Interrupted++
	case res.Verdict == judge.Held:
		r.Held++
	case res.Verdict == judge.Violated:
		r.Violated++
		r.Failures = append(r.Failures, Failure{Seed: tr.Seed, Draw: tr.Draw, Result: *res})
		if !s.opts.KeepGoing {
			s.stopFor(StoppedViolation)
		}
	default:
		r.Inconclusive++
		r.ByGate[res.Gate]++
		r.Undecided = append(r.Undecided, e)
	}
	if e.checked {
		r.Totals.Add(judge.RunTotals{Operations: e.Counts.Operations, Coverage: res.Coverage, Faults: e.faults, MinStale: e.minStale,
			IssuerFaults: e.issuerFaults})
	}
	if ctx.Err() != nil {
		s.stopFor(StoppedInterrupted)
	}
	if s.log != nil {
		s.log.write(&e)
	}
}

// finish orders what the workers recorded, decides, and writes the
// sweep's files.
func (s *sweep) finish(ctx context.Context) (Result, error) {
	r := &s.res
	r.Elapsed = time.Since(s.began)
	if ctx.Err() != nil && r.Stopped == "" && !s.exhausted {
		r.Stopped = StoppedInterrupted
	}
	slices.SortFunc(r.Failures, func(a, b Failure) int { return cmpSeed(a.Seed, b.Seed) })
	slices.SortFunc(r.Undecided, func(a, b Entry) int { return cmpSeed(a.Seed, b.Seed) })
	if len(r.Undecided) > maxUndecided {
		r.Undecided = r.Undecided[:maxUndecided]
	}
	if s.err != nil && r.Stopped == "error" {
		r.Stopped = ""
	}
	r.Verdict, r.Reason = r.decide()
	r.calibrate(s.cal)
	var werr error
	if s.log != nil {
		werr = s.log.close(r)
	}
	if s.err != nil {
		return *r, fmt.Errorf("seed %d: %w", s.errSeed, s.err)
	}
	return *r, werr
}

func cmpSeed(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// reportProgress calls Options.Progress from a ticker until the
// returned function is called.
func (s *sweep) reportProgress() func() {
	if s.opts.Progress == nil {
		return func() {}
	}
	snapshot := func() Progress {
		s.mu.Lock()
		defer s.mu.Unlock()
		p := Progress{Done: s.res.Runs, Held: s.res.Held, Violated: s.res.Violated, Inconclusive: s.res.Inconclusive,
			Elapsed: time.Since(s.began)}
		if !s.opts.Seeds.Unbounded() {
			p.Total = s.opts.Seeds.Len()
		}
		return p
	}
	return tick.Every(250*time.Millisecond, func() { s.opts.Progress(snapshot()) })
}
