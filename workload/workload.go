// Package workload is what the clients of a run do: workers that each loop
// through the article's job — take a lease on a resource, read the input,
// prepare a result with a unique value, stop at the pause point, write
// with the lease's token, sometimes write again with the same token,
// release — and record every operation as an invocation and a completion.
//
//	lease.Service ──Lease{token}──> worker ──pause point──> nemesis.Pauser
//	                                  │
//	                                  └──write, read──> nemesis.Deliverer ──> targets.Target
//	                                                         │
//	                                  histories.Recorder <───┘ invoke / complete
//
// A request that has left a worker is never withdrawn: a worker that stops
// waiting for its answer records an unknown outcome and goes on as a new
// process, while the request may still reach the target.
//
// What the workers rely on against an older owner is their Strategy:
// fencing (the token on every write) by default, or one of the article's
// tempting fixes, which write without the token. The pool keeps a Job
// record per job, from which Measure says what the strategy cost (job
// latency, leases taken from live workers).
package workload

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
)

// Config is the shape of the work.
type Config struct {
	Workers   int
	Resources []string
	// ValuePrefix starts every value written, so that values name one
	// write even across runs that share resources.
	ValuePrefix string
	// Duration ends the work after this much run time, Ops after this
	// many client operations, whichever comes first; zero is no limit.
	Duration time.Duration
	Ops      int
	// Rate spaces operations 1/Rate seconds apart, all workers together;
	// zero is no limit.
	Rate float64
	// ReadShare is the probability of an extra read of a random resource
	// after each job; RepeatShare that an owner writes a second time with
	// the same token (the article's fifth step).
	ReadShare, RepeatShare float64
	// Think is the mean time a worker spends preparing its result.
	Think time.Duration
	// OpTimeout is how long a worker waits for an answer before it
	// records an unknown outcome.
	OpTimeout time.Duration
	// Latency is the mean one-way delay simulated around each call, for
	// a simulated run in which the target answers at once; zero adds none.
	Latency time.Duration
	// Strategy is what the workers rely on against an older owner's
	// write (see Strategy); RenewEvery is how often the Renew strategy
	// renews a lease.
	Strategy   Strategy
	RenewEvery time.Duration
	// ClockSkew is how far the workers' clocks run behind the issuer's
	// over a lease: a worker believes its lease has ClockSkew more time
	// left than the issuer does (see Renew). Zero is clocks that agree.
	ClockSkew time.Duration
	// MaxToken is the largest token the target stores; a write with a
	// token above it is never sent and is recorded as not applied
	// (targets.OutsideDomain). Zero is no limit.
	MaxToken uint64
	// Burst gathers writes with adjacent tokens on one resource and
	// sends them together (see Burst); the zero Burst makes none.
	Burst Burst
	// TraceSeed is what the trace ids of the run's operations are drawn
	// from, for a target that carries them (targets.TraceCarrier): the
	// run's id, so that a deterministic run reuses its ids and a
	// real-time one does not (see traces).
	TraceSeed string
	_         struct{} // keyed fields only: the struct may grow
}

// Run is what the workers work with.
type Run struct {
	Runtime  sched.Runtime
	Recorder *histories.Recorder
	Rand     *sched.Rand
	Leases   lease.Service
	Target   targets.Target
	// Faults are the nemesis's faults that hold workers and writes, and
	// Env is the view of the run they act on.
	Pausers    []nemesis.Pauser
	Deliverers []nemesis.Deliverer
	Env        nemesis.Env
	// Life bounds requests already on their way: they live until the
	// run's final reads are done, not only until their worker gives up.
	Life context.Context
	_    struct{} // keyed fields only: the struct may grow
}

// Pool is a run's workers.
type Pool struct {
	cfg Config
	Run
	tokenless targets.TokenlessWriter // the target, for strategies that do not fence
	direct    bool                    // requests run on their worker's task (see call)
	traces    *traces                 // nil: the target carries no trace context
	jobs      jobLog
	accepted  *tokenWatch // tokens clients saw accepted
	sent      *tokenWatch // tokens workers sent
	inflight  *sched.Group
	issued    atomic.Int64
	holds     holds
	bursts    bursts
	counts    counters
	paceMu    sync.Mutex
	nextSlot  int64
}

// New returns the workers of run, shaped by cfg, or what cfg.Strategy
// needs that run's lease service or target lacks (CheckStrategy).
func New(cfg Config, run Run) (*Pool, error) {
	if err := CheckStrategy(cfg.Strategy, run.Leases, run.Target); err != nil {
		return nil, err
	}
	if cfg.Strategy == Renew && cfg.RenewEvery <= 0 {
		return nil, fmt.Errorf("client strategy %s: the renewal interval must be positive, not %v", cfg.Strategy, cfg.RenewEvery)
	}
	p := &Pool{cfg: cfg, Run: run, accepted: newTokenWatch(run.Runtime), sent: newTokenWatch(run.Runtime),
		inflight: sched.NewGroup(run.Runtime), direct: direct(cfg, run)}
	if !cfg.Strategy.Fences() {
		p.tokenless, _ = targets.Tokenless(run.Target) // CheckStrategy made sure
	}
	if targets.CarriesTrace(run.Target) {
		p.traces = newTraces(cfg.TraceSeed)
	}
	return p, nil
}

// Start starts the workers as tasks of the run's runtime and returns
// their group, to wait for.
func (p *Pool) Start(ctx context.Context) *sched.Group {
	workers := sched.NewGroup(p.Runtime)
	for i := range p.cfg.Workers {
		w := &worker{id: i, proc: i}
		workers.Go(func() { p.work(ctx, w) })
	}
	return workers
}

// Settle waits, at most timeout, for requests still on their way.
func (p *Pool) Settle(timeout time.Duration) {
	p.inflight.Wait(context.Background(), timeout)
}

// NewerAccepted returns a gate that opens once a client saw a write with
// a token above token accepted on resource (nemesis.Env).
func (p *Pool) NewerAccepted(resource string, token uint64) sched.Gate {
	return p.accepted.newer(resource, token)
}

// NewerSent returns a gate that opens once a worker sent a write with a
// token above token to resource (nemesis.Env).
func (p *Pool) NewerSent(resource string, token uint64) sched.Gate {
	return p.sent.newer(resource, token)
}
