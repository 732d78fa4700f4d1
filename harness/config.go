// Package harness is the thin orchestrator of one run: it wires the stages
// together, runs the workers against a target while the nemesis injects
// faults, reads the recorded history back, checks and explains it, and
// says what the run exercised. It has no dependency on testing; the
// fencetest package adapts it to go test.
//
//	lease ──tokens──> workload (workers) ──write(resource, token, value)──> nemesis ──> target
//	                      │
//	                      └──> histories.Recorder ──> check ──> explain ──> Result, runstore, report
package harness

import (
	"time"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/buildinfo"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/workload"
)

// Config describes a run, grouped by concern: the receiver, what the
// workers do, where their leases come from, the faults, the clock, what
// a pass asks of the history, where the run is kept, and how it is
// described. DefaultConfig gives every field its default, and the
// presets (presets.go) the common runs; a zero field means zero (no
// extra reads, no think time, no shrinking), and Validate says what is
// wrong with a field that cannot be zero, naming it as Config.Workload.Workers
// is named: "Workload.Workers".
type Config struct {
	// Target is the receiver under test. Target.Receiver is required.
	Target Target
	// Workload is what the workers do, how many, for how long, and what
	// they rely on against an older owner's write.
	Workload Workload
	// Leases is where the workers' leases and tokens come from.
	Leases Leases
	// Nemesis is the faults, and when they act.
	Nemesis Nemesis
	// Runtime is the clock and the scheduler the run is on, and the seed
	// of every random choice.
	Runtime Runtime
	// Gates are what the judgement of the run's history asks of it
	// (judge.Options).
	Gates Gates
	// Store is where the run is kept.
	Store Store
	// Output is how the run is described and watched: the command that
	// repeats it, the words for its settings, the version, the live
	// progress and events.
	Output Output

	// skipJudge stops after recording, so that benchmarks measure the run
	// loop alone.
	skipJudge bool
	// stepsTaken, if set, is told how many steps a deterministic run's
	// scheduler took, so that tests can hold estimatedSteps to them.
	stepsTaken func(int)
	_          struct{} // keyed fields only: the struct may grow
}

// Target is the receiver under test.
type Target struct {
	// Receiver is the receiver's target. Required.
	Receiver targets.Target
	// Name names it in the run store and reports (never with a
	// password).
	Name string
	// MaxToken is the largest token the receiver stores, as the caller
	// declares it (a BIGINT column: 2^63-1); 0, what the target declares
	// (targets.TokenDomain), else 2^64-1. The run's domain is the smaller
	// of the two: its lease service grants no token above it, and a write
	// with one is never sent (not applied, never a violation).
	MaxToken uint64
	_        struct{}
}

// Workload is what the workers do.
type Workload struct {
	Workers   int // concurrent workers
	Resources int // protected resources; with ResourceNames, as many as there are names
	// ResourceNames fixes the resources' names. Empty, the run names them
	// for itself (<run id>-r0 …), so that state an earlier run left on a
	// durable receiver cannot meet this run's (see resources.go). With
	// fixed names, the run starts from what each resource holds (see
	// observe.go).
	ResourceNames []string
	// Shard, when set, makes the run one shard of a job that several
	// processes run against one issuer and one receiver: the run works on
	// the ResourceNames that Shard owns and no other (see shard.go). It
	// needs ResourceNames, the job's resources, the same in every shard.
	// nil: the run owns all its resources.
	Shard *Shard
	// Duration ends the work after this much run time, Ops after this
	// many client operations, whichever comes first; zero is no limit,
	// and at least one of them must be set.
	Duration time.Duration
	Ops      int
	Rate     float64 // client operations per second, all workers together; 0: unlimited
	// ReadShare is the probability of an extra read of a random resource
	// after each job. RepeatShare is the probability that an owner writes
	// a second time with the same token (the article's fifth step).
	ReadShare   float64
	RepeatShare float64
	// Think is the mean time a worker spends preparing its result between
	// reading its input and writing.
	Think time.Duration
	// OpTimeout is how long a worker waits for an answer before it records
	// an unknown outcome and continues as a new process.
	OpTimeout time.Duration
	// Strategy is what the workers rely on against an older owner's
	// write: workload.Fencing (the token on every write) or one of the
	// article's tempting fixes, which send no token (see
	// workload.Strategy). A strategy that does not fence needs a target
	// that can write without a token (targets.TokenlessWriter); Renew a
	// lease service that renews (lease.Renewer), CheckBeforeWrite one
	// that says whether a lease is held (lease.HolderChecker).
	Strategy workload.Strategy
	// LeaseMultiplier makes the leases of workload.LongerLease last
	// Leases.TTL times it, at least 1; everything else that follows the
	// lease (think time, the operation timeout, the faults' windows and
	// pauses, RenewEvery) keeps following Leases.TTL. Other strategies
	// ignore it.
	LeaseMultiplier float64
	// RenewEvery is how often workload.Renew renews a lease.
	RenewEvery time.Duration
	// ClockSkew is how far the workers' clocks run behind the issuer's
	// over a lease (workload.Config.ClockSkew): a worker believes its
	// lease has ClockSkew more time left than the issuer does. Only the
	// strategy that times its renewals by its clock (workload.Renew)
	// reads it; zero, the default, is clocks that agree.
	ClockSkew time.Duration
	// Burst gathers writes with adjacent tokens on one resource and sends
	// them at once, the interleaving a receiver that checks and writes in
	// two steps fails on (workload.Burst); only with workload.Fencing.
	// The zero Burst makes none.
	Burst workload.Burst
	_     struct{}
}

// Leases is where the workers' leases and tokens come from.
type Leases struct {
	// TTL is the lease duration; Config.SetLeaseTTL also scales the
	// timings that follow it.
	TTL time.Duration
	// Service issues the leases and their tokens; nil, the run's own
	// in-memory service (lease.Local) with TTL.
	Service lease.Service
	// Issuer, instead of Service, opens a real token issuer (etcd, Redis,
	// a database sequence) for the run, with the run's recorder, life and
	// TTL. A real issuer runs on the real clock: not with
	// Runtime.Deterministic.
	Issuer lease.Issuer
	// Tokens is the sequence of tokens the run's own lease service grants
	// on each resource: lease.Dense() (the zero value), lease.Sparse(),
	// which jumps across 2^31, 2^32, 2^53 and 2^63 inside the receiver's
	// domain, or lease.From(n). Only the run's own service renumbers its
	// tokens: with Service or Issuer it must be Dense.
	Tokens lease.Tokens
	_      struct{}
}

// Nemesis is the faults, and when they act.
type Nemesis struct {
	Faults []nemesis.Fault
	// Schedule switches the faults on and off; required when there are
	// faults.
	Schedule nemesis.Schedule
	_        struct{}
}

// Runtime is the clock and the scheduler a run is on.
type Runtime struct {
	// Seed drives every random choice; with Deterministic or
	// VirtualClock it fixes the whole history.
	Seed uint64
	// Deterministic runs under a seeded scheduler with a virtual clock:
	// no real sleeps, a reproducible interleaving. Only for targets that
	// never block outside the harness (the memory targets).
	Deterministic bool
	// TaskOrder is how the deterministic scheduler chooses among tasks
	// ready at the same virtual instant: sched.Random() (the default) or
	// sched.PCT(d), priority schedules that find a bug of depth d with a
	// probability PCT guarantees (see steps.go and docs/exploration.md).
	// Anything but Random needs Deterministic: no other run is scheduled
	// by fencecheck.
	TaskOrder sched.Order
	// VirtualClock says that Run is called inside a testing/synctest
	// bubble, whose clock moves only when every goroutine of the bubble
	// waits (fencetest's Synctest option calls it so). The run is then on
	// the real-time runtime with distinct wake-ups
	// (sched.NewRealDistinct), so that one of its tasks acts at a time;
	// its run id is drawn from Seed; and Latency is simulated around each
	// call, as in a deterministic run, since an in-process receiver
	// answers at once. The same seed then gives the same history byte for
	// byte, unless the receiver's own goroutines race. Nothing in the run
	// may wait on anything outside the bubble: no Issuer, no target that
	// talks to a network or a process. Gates.CheckTimeout and
	// ShrinkTimeout count the bubble's time, which stands still while the
	// checker computes: they bound nothing there. Not with Deterministic.
	VirtualClock bool
	// Latency is the mean one-way delay simulated around each call in
	// deterministic mode and with VirtualClock.
	Latency time.Duration
	// Started is when the run began by the wall clock, which names its
	// directory and is Result.Started; zero, now. Inside a synctest
	// bubble, whose clock starts at 2000-01-01, the caller gives it from
	// outside (fencetest does).
	Started time.Time
	_       struct{}
}

// Gates are what the judgement of a run's history asks of it: the
// options of judge.Options a run's caller chooses.
type Gates struct {
	Policy model.Policy
	// RequireExclusive also fails accepted writes sent after their lease
	// had ended on the issuer or been reassigned.
	RequireExclusive bool
	// MinStale makes a run inconclusive unless at least this many stale
	// writes were submitted, whatever its faults (judge.Options.MinStale):
	// DefaultConfig asks for one; 0 is the explicit opt-out, and a pass
	// then says it tested no stale write.
	MinStale int
	// StopOnViolation judges the history as it is recorded and stops the
	// run at the first violation (judge.Watch); the run then ends as an
	// interrupted one does, its history judged again whole.
	StopOnViolation bool
	// CheckTimeout bounds the check; 0: no limit.
	CheckTimeout time.Duration
	// ShrinkTimeout bounds the search for a minimal counterexample when
	// the history is invalid; 0: do not shrink.
	ShrinkTimeout time.Duration
	_             struct{}
}

// Store is where a run is kept.
type Store struct {
	// Dir is the run store. RunName is the run's folder in it; empty, it
	// is derived from Target.Name.
	Dir     string
	RunName string
	// Keep says which runs are stored: KeepAll (the zero value), or
	// KeepViolations, which leaves nothing in the store of a run that
	// found no violation (see Keep). Result.Dir is then empty.
	Keep Keep
	// NoReport leaves report.html and the timelines out of the run
	// directory.
	NoReport bool
	_        struct{}
}

// Output is how a run is described and watched.
type Output struct {
	// Command is the command that repeats this run as its caller would
	// type it (the CLI's flags, a go test line), shown in the summary,
	// the report and result.json. Empty, none is shown: a line that does
	// not reproduce the run is worse than none.
	Command string
	// Terms words the settings that the summary, the report and
	// Result.NotCovered point at, as the caller spells them (the CLI as
	// flags); nil, as Config's fields (ConfigTerms).
	Terms Terms
	// Version is fencecheck's version, recorded in every result.
	Version string
	// Progress, if set, is called about four times a second while workers
	// run, from a goroutine of its own.
	Progress func(Progress)
	// Observer, if set, sees every event of the history as it is
	// recorded, in the history's order (histories.Observer): a live view
	// of a long run, such as the Prometheus counters of `fencecheck run
	// --metrics`, that the harness itself knows nothing of. It runs on
	// the recording path of every worker, so it must be quick.
	Observer histories.Observer
	// Calibration, if set, is what twins of the target with planted bugs
	// measured in this configuration (explore.Calibrate): the run states
	// it beside its verdict, in result.json, the summary, the report and
	// JUnit, for this one run (Seeds 1).
	Calibration *judge.Calibration
	_           struct{}
}

// DefaultConfig is the run `fencecheck run --target …` makes with no other
// flag: 8 workers on 4 resources for 5 s, 100 ms leases, pause and delay
// faults in random windows, and a gate of one stale write. Every default
// of the harness is here; set Target, and change what the run needs.
func DefaultConfig() Config {
	c := Config{
		Workload: Workload{Workers: 8, Resources: 4, Duration: 5 * time.Second, Strategy: workload.Fencing, LeaseMultiplier: 3,
			ReadShare: 0.2, RepeatShare: 0.2, Burst: workload.Burst{Share: 0.3, Size: 4}},
		Nemesis: Nemesis{Faults: []nemesis.Fault{nemesis.NewPause(), nemesis.NewDelay()}},
		Runtime: Runtime{TaskOrder: sched.Random(), Latency: 500 * time.Microsecond},
		Gates: Gates{MinStale: judge.DefaultMinStale, CheckTimeout: judge.DefaultCheckTimeout,
			ShrinkTimeout: explain.DefaultShrinkOptions().Timeout},
		Store:  Store{Dir: "store"},
		Output: Output{Version: buildinfo.Read("").Version},
	}
	c.SetLeaseTTL(100 * time.Millisecond)
	return c
}

// SetLeaseTTL sets Leases.TTL and the timings DefaultConfig scales with
// it: a worker thinks for a quarter of a lease on average and waits four
// for an answer, the faults' random windows open every three leases and
// last up to four, workload.Renew renews three times a lease, and a
// burst gathers for at most four leases. Set
// Workload.Think, OpTimeout, Nemesis.Schedule or Workload.RenewEvery
// after it to choose them apart from the lease. A ttl that is not
// positive leaves the timings as they are, so that Validate reports the
// lease alone.
func (c *Config) SetLeaseTTL(ttl time.Duration) {
	c.Leases.TTL = ttl
	if ttl <= 0 {
		return
	}
	c.Workload.Think = ttl / 4
	c.Workload.OpTimeout = 4 * ttl
	c.Nemesis.Schedule = nemesis.Random{Interval: 3 * ttl, Window: 4 * ttl}
	c.Workload.RenewEvery = ttl / 3
	c.Workload.Burst.Wait = 4 * ttl
}

// IssuedTTL is the TTL of the leases the run's lease service issues:
// Leases.TTL, times Workload.LeaseMultiplier for workload.LongerLease.
func (c *Config) IssuedTTL() time.Duration {
	if c.Workload.Strategy == workload.LongerLease {
		return time.Duration(float64(c.Leases.TTL) * c.Workload.LeaseMultiplier)
	}
	return c.Leases.TTL
}

// simulatesLatency says whether the run adds Latency around each call:
// when its target answers at once, in the deterministic simulation and
// on a synctest bubble's virtual clock.
func (c *Config) simulatesLatency() bool { return c.Runtime.Deterministic || c.Runtime.VirtualClock }

// issuerName names the run's token issuer, "" for its own lease service.
func (c *Config) issuerName() string {
	if c.Leases.Issuer == nil {
		return ""
	}
	return c.Leases.Issuer.Name()
}

// terms are the words for settings the caller chose, else Config's.
func (c *Config) terms() Terms {
	if c.Output.Terms != nil {
		return c.Output.Terms
	}
	return ConfigTerms{}
}

// runName is the run's folder in the store.
func (c *Config) runName() string {
	if c.Store.RunName != "" {
		return c.Store.RunName
	}
	return runstore.Name(c.Target.Name)
}
