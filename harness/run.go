package harness

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/logscan"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/tick"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/workload"
)

// run is the state of one run; it is also the nemesis's Env.
type run struct {
	cfg Config
	rt  sched.Runtime
	// clock is rt as the workload and the faults see it: from the
	// start of the run's own work (see workClock).
	clock     sched.Runtime
	rec       *histories.Recorder
	rand      *sched.Rand
	leases    lease.Service
	workers   *workload.Pool
	runID     string
	resources []string
	life      context.Context // lives until the final reads are done
	// observeErr is why the state before the run could not be adopted;
	// the workers then never start.
	observeErr error
	// reader is the process id of the harness's own reads, before the
	// run and after it: one id, so that a read without an answer moves it
	// on for every later read (a process is never reused after one).
	reader int

	deliverers []nemesis.Deliverer
	pausers    []nemesis.Pauser
	actors     []nemesis.Actor
	holders    []nemesis.WindowHolder
	faultClock *phaseClock
	// issuerServers: the lease service has servers the issuer faults
	// can act on (lease.Servers).
	issuerServers bool
	// issuerReplica: the lease service has a replica issuer-failover can
	// promote (lease.IssueCounter).
	issuerReplica bool
	// restorable: the lease service can be restored from a snapshot
	// (lease.Restorer), which the restore faults need.
	restorable bool

	failure failure
	// receiverLog is what the receiver's log showed, read after the
	// tear-down stopped the receiver; nil for a target without one.
	receiverLog *logscan.Outcome
	// ended are the leases the nemesis ended, for the strategy's
	// measures (strategy.go).
	ended nemesisEnds
}

// Run performs one run: set-up, workers and faults, final reads, the
// check, and the run store. A non-nil error means the run could not be
// carried out (bad configuration, unreachable target, unwritable store);
// a violation is a Result, not an error.
//
// If ctx is cancelled (Ctrl-C), workers stop, the history recorded so far
// is closed and checked, and the Result says the run was interrupted.
//
// The run becomes the store's latest once its result.json is written
// (an interrupted run's too); a run that ends in an error never does, and
// leaves its directory only if it recorded something (see runstore.Fail).
// Under KeepViolations (Config.Store.Keep) a run that found no violation leaves
// nothing in the store, and its Result has no Dir.
func Run(ctx context.Context, cfg Config) (res Result, err error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, fmt.Errorf("invalid configuration: %w", err)
	}
	ctx, stopWatching := stopOnViolation(ctx, &cfg)
	defer stopWatching()
	begun := time.Now() // the run's own clock: virtual inside a bubble
	started := cfg.Runtime.Started
	if started.IsZero() {
		started = begun
	}
	started = started.UTC()
	st, err := newStorage(&cfg, started)
	if err != nil {
		return Result{}, err
	}
	wrote := false // result.json
	// Deferred first, so it runs last: after the teardown.
	defer func() { res, err = settle(st, wrote, res, err) }()
	if u, ok := cfg.Target.Receiver.(targets.RunDirUser); ok {
		u.UseRunDir(st.dir)
	}
	if s, ok := cfg.Target.Receiver.(targets.Setupper); ok {
		if err := s.Setup(ctx); err != nil {
			return Result{}, fmt.Errorf("set up target %s: %w", cfg.Target.Name, err)
		}
	}
	td := newTeardown(ctx, cfg)
	defer func() { err = td.finish(err) }()

	var rt interface {
		sched.Runtime
		Run(func()) error
	}
	switch {
	case cfg.Runtime.Deterministic:
		sim := sched.NewSimOrdered(cfg.Runtime.Seed, cfg.Runtime.TaskOrder, cfg.estimatedSteps())
		if cfg.stepsTaken != nil {
			defer func() { cfg.stepsTaken(sim.Steps()) }()
		}
		rt = sim
	case cfg.Runtime.VirtualClock:
		rt = sched.NewRealDistinct()
	default:
		rt = sched.NewReal()
	}
	rec, err := st.recorder(histories.RecorderOptions{Clock: rt, Observer: cfg.Output.Observer})
	if err != nil {
		return Result{}, err
	}
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	defer endLife()
	r := &run{cfg: cfg, rt: rt, rec: rec, rand: sched.NewRand(cfg.Runtime.Seed), life: life, leases: cfg.Leases.Service}
	if cfg.Leases.Issuer != nil {
		svc, err := cfg.Leases.Issuer.Open(ctx, lease.Env{Life: life, Runtime: rt, Recorder: rec, TTL: cfg.IssuedTTL(), Dir: st.dir,
			ClockJumps: jumpsClock(cfg.Nemesis.Faults)})
		if err != nil {
			_ = rec.Close()
			return Result{}, fmt.Errorf("open lease issuer %s: %w", cfg.Leases.Issuer.Name(), err)
		}
		if c, ok := svc.(io.Closer); ok {
			defer func() {
				if cerr := c.Close(); cerr != nil {
					res.Warnings = append(res.Warnings, fmt.Sprintf("close lease issuer %s: %v", cfg.Leases.Issuer.Name(), cerr))
				}
			}()
		}
		r.leases = svc
	}
	if r.leases == nil {
		r.leases = lease.NewLocal(life, rt, rec, cfg.IssuedTTL())
		r.useTokens()
	}
	r.clock = rt
	if cfg.Leases.Issuer != nil {
		r.clock = workClock{Runtime: rt, start: rt.Now()}
	}
	if err := r.attachIssuer(r.leases); err != nil {
		_ = rec.Close()
		return Result{}, fmt.Errorf("lease issuer: %w", err)
	}
	r.runID = newRunID(cfg.Runtime.Seed, cfg.Runtime.Deterministic || cfg.Runtime.VirtualClock)
	var valuePrefix string
	r.resources, valuePrefix = resourceNames(&cfg, r.runID)
	r.wireFaults()
	r.workers, err = workload.New(r.workload(valuePrefix), workload.Run{Runtime: r.clock, Recorder: rec, Rand: r.rand, Leases: r.leases,
		Target: cfg.Target.Receiver, Pausers: r.pausers, Deliverers: r.deliverers, Env: r, Life: life})
	if err != nil {
		_ = rec.Close()
		return Result{}, fmt.Errorf("%s with leases from %s: %w", cfg.Target.Name, r.leasesName(), err)
	}

	stopProgress := r.reportProgress()
	simErr := rt.Run(func() { r.main(r.watchFailure(ctx), endLife) })
	stopProgress()
	warnings := td.run() // the target's work is done: the final reads were its last
	r.receiverLog = scanReceiverLog(cfg.Target.Receiver)
	if err := rec.Close(); err != nil {
		return Result{}, fmt.Errorf("record history %s: %w", st.historyPath(), err)
	}
	if err := r.failed(st); err != nil {
		return Result{}, err
	}
	if simErr != nil {
		return Result{}, fmt.Errorf("run %s: %w", cfg.Target.Name, simErr)
	}
	if r.observeErr != nil {
		return Result{}, fmt.Errorf("%s: %w (the history so far is in %s)", cfg.Target.Name, r.observeErr, st.keptHistory())
	}
	if cfg.skipJudge {
		return Result{}, nil
	}
	var stopped error
	if ctx.Err() != nil {
		stopped = context.Cause(ctx)
	}
	res, err = r.judge(st, stopped)
	if err != nil {
		return Result{}, err
	}
	res.Started, res.Elapsed = started, time.Since(begun)
	res.Warnings = warnings
	if c := cfg.Output.Calibration; c != nil {
		cal := *c
		cal.Twins = slices.Clone(c.Twins)
		cal.For(1)
		res.Calibration = &cal
		res.Verdict, res.Reason = cal.Gate(res.Verdict, res.Reason)
	}
	if cfg.Store.Keep == KeepViolations && res.Verdict != judge.Violated {
		if err := st.discard(); err != nil {
			res.Warnings = append(res.Warnings, err.Error())
		}
		return res, nil
	}
	if err := st.keep(); err != nil {
		return res, err
	}
	res.Dir = st.dir
	if err := writeResult(st.dir, &res); err != nil {
		return res, err
	}
	wrote = true
	if !cfg.Store.NoReport {
		if err := writeReport(st.dir, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// wireFaults sorts the faults by what they can do.
func (r *run) wireFaults() {
	for _, f := range r.cfg.Nemesis.Faults {
		if d, ok := f.(nemesis.Deliverer); ok {
			r.deliverers = append(r.deliverers, d)
		}
		if p, ok := f.(nemesis.Pauser); ok {
			r.pausers = append(r.pausers, p)
		}
		if a, ok := f.(nemesis.Actor); ok {
			r.actors = append(r.actors, a)
		}
		if h, ok := f.(nemesis.WindowHolder); ok {
			r.holders = append(r.holders, h)
		}
		if a, ok := f.(nemesis.Attacher); ok {
			a.Attach(r)
		}
	}
	if w, ok := r.cfg.Target.Receiver.(targets.Windowed); ok {
		w.SetWindow(func(ctx context.Context, resource string, token uint64) {
			if r.cfg.simulatesLatency() {
				// Processing time between the check and the write,
				// comparable to a network leg.
				_ = r.rt.Sleep(ctx, time.Duration(2*r.rand.Float64()*float64(r.cfg.Runtime.Latency)))
			} else {
				r.rt.Yield()
			}
			for _, h := range r.holders {
				h.HoldInWindow(ctx, r, resource, token)
			}
		})
	}
}

// workload is the shape of the run's work, from its configuration.
func (r *run) workload(valuePrefix string) workload.Config {
	w := workload.Config{Workers: r.cfg.Workload.Workers, Resources: r.resources, ValuePrefix: valuePrefix, Duration: r.cfg.Workload.Duration,
		Ops: r.cfg.Workload.Ops, Rate: r.cfg.Workload.Rate, ReadShare: r.cfg.Workload.ReadShare, RepeatShare: r.cfg.Workload.RepeatShare, Think: r.cfg.Workload.Think,
		OpTimeout: r.cfg.Workload.OpTimeout, Strategy: r.cfg.Workload.Strategy, RenewEvery: r.cfg.Workload.RenewEvery, ClockSkew: r.cfg.Workload.ClockSkew, MaxToken: r.cfg.domain(),
		TraceSeed: r.traceSeed(), Burst: r.cfg.Workload.Burst}
	if r.cfg.simulatesLatency() {
		w.Latency = r.cfg.Runtime.Latency // the target answers at once
	}
	return w
}

// traceSeed is what the run's trace ids are drawn from (workload.Config):
// its id, drawn from the seed in a deterministic run and at random in a
// real-time one, and its shard, since the shards of a deterministic job
// may share a seed and so a run id, and write to one receiver.
func (r *run) traceSeed() string {
	if r.cfg.Workload.Shard != nil {
		return r.runID + " shard " + r.cfg.Workload.Shard.String()
	}
	return r.runID
}

// main is the run's first task: the state before the run, faults and
// workers, then the final reads.
func (r *run) main(ctx context.Context, endLife context.CancelFunc) {
	defer endLife()
	if r.observeErr = r.observe(ctx); r.observeErr != nil {
		return
	}
	ph := planPhases(r.cfg.Workload.Duration)
	if _, scripted := r.cfg.Nemesis.Schedule.(nemesis.Script); scripted {
		ph.warmup = 0 // a script says exactly when each fault starts
	}
	r.faultClock = &phaseClock{Runtime: r.clock}
	if ph.faultEnd > 0 {
		r.faultClock.end.Store(int64(ph.faultEnd))
	}
	workers := r.workers.Start(ctx)
	faults := sched.NewGroup(r.rt)
	workersDone := r.rt.NewGate()
	faults.Go(func() {
		if r.rt.Sleep(ctx, ph.warmup) != nil {
			return
		}
		for _, a := range r.actors {
			faults.Go(func() { a.Act(ctx, r) })
		}
		if r.cfg.Nemesis.Schedule != nil {
			r.cfg.Nemesis.Schedule.Run(ctx, r, r.cfg.Nemesis.Faults)
		}
		// Keep the phase open until its end even if a scripted schedule
		// finished early: its end, or with an operation limit alone,
		// the workers' end.
		if ph.faultEnd > 0 {
			_ = r.faultClock.Sleep(ctx, time.Duration(ph.faultEnd))
		} else {
			workersDone.Wait(ctx, 0)
		}
		nemesis.StopAll(r, r.cfg.Nemesis.Faults)
	})
	workers.Wait(context.Background(), 0)
	// With an operation limit alone, the faults end with the workers.
	r.faultClock.end.CompareAndSwap(0, max(r.clock.Now(), 1))
	workersDone.Open()
	faults.Wait(context.Background(), 0)
	nemesis.StopAll(r, r.cfg.Nemesis.Faults)
	// Let writes still on their way arrive, then observe the end state.
	r.workers.Settle(2 * r.cfg.Workload.OpTimeout)
	r.finalReads(ctx)
}

// finalReads reads every resource once after the faults stopped, so that
// the end state is part of the history.
func (r *run) finalReads(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	for _, res := range r.resources {
		r.workers.ReadOnce(ctx, &r.reader, res) // not part of the operation limit
	}
}

// reportProgress calls Config.Output.Progress from a real-time ticker until the
// returned function is called.
func (r *run) reportProgress() func() {
	if r.cfg.Output.Progress == nil {
		return func() {}
	}
	return tick.Every(250*time.Millisecond, func() {
		r.cfg.Output.Progress(r.workers.Progress(time.Duration(r.clock.Now())))
	})
}

// The nemesis.Env methods.

func (r *run) Runtime() sched.Runtime { return r.faultClock }
func (r *run) Float64() float64       { return r.rand.Float64() }
func (r *run) IntN(n int) int         { return r.rand.IntN(n) }
func (r *run) Record(e *histories.Event) {
	r.rec.Record(e)
}
func (r *run) LeaseTTL() time.Duration { return r.cfg.Leases.TTL }
func (r *run) ExpireLease(resource string) bool {
	from := r.rt.Now()
	if !r.leases.Expire(resource) {
		return false
	}
	r.ended.add(nemesisEnd{resource: resource, from: from, to: r.rt.Now()})
	return true
}
func (r *run) OutliveLease(resource string, token uint64) bool {
	if !r.leases.ExpireToken(resource, token) {
		return false
	}
	r.ended.add(nemesisEnd{resource: resource, token: token})
	return true
}
func (r *run) LapseLease(resource string, token uint64) (sched.Gate, time.Duration, bool) {
	ended, within, ok := r.lapseLease(resource, token)
	if ok {
		// Its TTL runs out because the nemesis holds its worker: not a
		// lease taken from a live worker.
		r.ended.add(nemesisEnd{resource: resource, token: token})
	}
	return ended, within, ok
}
func (r *run) Resources() []string       { return r.resources }
func (r *run) Holding(worker int) func() { return r.workers.Holding(worker) }
func (r *run) NewerAccepted(resource string, token uint64) sched.Gate {
	return r.workers.NewerAccepted(resource, token)
}
func (r *run) NewerSent(resource string, token uint64) sched.Gate {
	return r.workers.NewerSent(resource, token)
}

// ensure the run satisfies the nemesis's view of it.
var _ nemesis.Env = (*run)(nil)
