// Package harness runs concurrent, token-carrying workers against a target
// while the nemesis injects faults, records the history, checks it, and
// says what the run exercised. It has no dependency on testing; the
// fencetest package adapts it to go test.
//
//	generator ──> workers ──write(resource, token, value)──> [nemesis] ──> target
//	                │  ▲
//	           lease service (tokens)
//	                └──> histories.Recorder ──> models (check) ──> Result, run store
package harness

import (
	"errors"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/targets"
)

// Config describes a run. Zero fields take the defaults documented on
// them; Validate says what is wrong with the rest.
type Config struct {
	// Target is the receiver under test. Required.
	Target targets.Target
	// TargetName names it in the run store and reports (never with a
	// password).
	TargetName string

	Workers   int // concurrent workers; default 8
	Resources int // protected resources; default 4, or len(ResourceNames)
	// ResourceNames fixes the resources' names. Empty, the run names them
	// for itself (<run id>-r0 …), so that state an earlier run left on a
	// durable receiver cannot meet this run's (see resources.go). With
	// fixed names, the run starts from what each resource holds (see
	// observe.go).
	ResourceNames []string
	Duration      time.Duration // how long workers run; default 5s unless Ops is set
	Ops           int           // stop after this many client operations; 0: no limit
	Rate          float64       // client operations per second, all workers together; 0: unlimited
	LeaseTTL      time.Duration // lease duration; default 100ms
	// ReadShare is the probability of an extra read of a random resource
	// after each job; default 0.2. RepeatShare is the probability that an
	// owner writes a second time with the same token (the article's fifth
	// step); default 0.2. Set either to a negative number for none.
	ReadShare   float64
	RepeatShare float64
	// Think is the mean time a worker spends preparing its result between
	// reading its input and writing; default LeaseTTL/4.
	// A negative Think means none.
	Think time.Duration
	// OpTimeout is how long a worker waits for an answer before it records
	// an unknown outcome and continues as a new process; default 4×LeaseTTL.
	OpTimeout time.Duration

	// Leases issues the leases and their tokens; nil, the run's own
	// in-memory service (lease.Local) with LeaseTTL.
	Leases lease.Service

	Faults   []nemesis.Fault
	Schedule nemesis.Schedule // default: random windows every ~3 lease TTLs

	// Seed drives every random choice; with Deterministic it fixes the
	// whole history.
	Seed uint64
	// Deterministic runs under a seeded scheduler with a virtual clock:
	// no real sleeps, a reproducible interleaving. Only for targets that
	// never block outside the harness (the memory targets).
	Deterministic bool
	// Latency is the mean one-way delay simulated around each call in
	// deterministic mode; default 500µs.
	Latency time.Duration

	Policy           model.Policy
	RequireExclusive bool // also fail accepted writes whose lease had been reassigned before they were sent
	// MinStale makes a run inconclusive unless at least this many stale
	// writes were submitted. Zero means none are needed; DefaultMinStale
	// gives what a run with given faults should ask for.
	MinStale int

	// Command is the command that repeats this run as its caller would
	// type it (the CLI's flags, a go test line), shown in the summary,
	// the report and result.json. Empty, none is shown: a line that does
	// not reproduce the run is worse than none.
	Command string

	// StoreDir is the run store; default "store". RunName is the run's
	// folder in it; default derived from TargetName.
	StoreDir string
	RunName  string

	CheckTimeout time.Duration // default 60s
	// Version is fencecheck's version, recorded in every result; default
	// "dev".
	Version string
	// ShrinkTimeout bounds the search for a minimal counterexample when
	// the history is invalid; default 10s, negative: do not shrink.
	ShrinkTimeout time.Duration
	// NoReport leaves report.html and the timelines out of the run
	// directory.
	NoReport bool
	// Progress, if set, is called about four times a second while workers
	// run, from a goroutine of its own.
	Progress func(Progress)

	// skipJudge stops after recording, so that benchmarks measure the run
	// loop alone.
	skipJudge bool
}

func (c *Config) setDefaults() {
	if c.Workers == 0 {
		c.Workers = 8
	}
	if c.Resources == 0 {
		c.Resources = 4
		if len(c.ResourceNames) > 0 {
			c.Resources = len(c.ResourceNames)
		}
	}
	if c.Duration == 0 && c.Ops == 0 {
		c.Duration = 5 * time.Second
	}
	if c.LeaseTTL == 0 {
		c.LeaseTTL = 100 * time.Millisecond
	}
	if c.ReadShare == 0 {
		c.ReadShare = 0.2
	}
	if c.RepeatShare == 0 {
		c.RepeatShare = 0.2
	}
	if c.Think == 0 {
		c.Think = c.LeaseTTL / 4
	}
	c.Think = max(c.Think, 0) // negative: no think time
	if c.OpTimeout == 0 {
		c.OpTimeout = 4 * c.LeaseTTL
	}
	if c.Latency == 0 {
		c.Latency = 500 * time.Microsecond
	}
	if c.Schedule == nil {
		c.Schedule = nemesis.Random{Interval: 3 * c.LeaseTTL, Window: 4 * c.LeaseTTL}
	}
	if c.StoreDir == "" {
		c.StoreDir = "store"
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.CheckTimeout == 0 {
		c.CheckTimeout = 60 * time.Second
	}
	if c.ShrinkTimeout == 0 {
		c.ShrinkTimeout = 10 * time.Second
	}
	if c.RunName == "" {
		c.RunName = runstore.Name(c.TargetName)
	}
}

// Validate reports every problem with c, each naming its field.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if c.Target == nil {
		bad("target", "required")
	}
	if c.Workers < 1 || c.Workers > 10000 {
		bad("workers", "%d is not between 1 and 10000", c.Workers)
	}
	if c.Resources < 1 || c.Resources > 1000000 {
		bad("resources", "%d is not between 1 and 1000000", c.Resources)
	}
	if len(c.ResourceNames) > 0 && len(c.ResourceNames) != c.Resources {
		bad("resource-names", "%d names for %d resources", len(c.ResourceNames), c.Resources)
	}
	seen := make(map[string]bool)
	for _, name := range c.ResourceNames {
		if why := validResourceName(name); why != "" {
			bad("resource-names", "%s", why)
		}
		if seen[name] {
			bad("resource-names", "%q appears twice", name)
		}
		seen[name] = true
	}
	if c.Duration < 0 {
		bad("duration", "negative")
	}
	if c.Ops < 0 {
		bad("ops", "negative")
	}
	if c.Rate < 0 {
		bad("rate", "negative")
	}
	if c.LeaseTTL <= 0 {
		bad("lease-ttl", "must be positive")
	}
	if c.ReadShare > 1 || c.RepeatShare > 1 {
		bad("read-share", "shares are probabilities, at most 1")
	}
	if c.OpTimeout < 0 || c.Latency < 0 {
		bad("timing", "durations must not be negative")
	}
	if c.MinStale < 0 {
		bad("min-stale", "negative")
	}
	if sc, ok := c.Schedule.(nemesis.Script); ok {
		if err := sc.Validate(c.Faults); err != nil {
			bad("nemesis-script", "%v", err)
		}
	}
	return errors.Join(errs...)
}

// DefaultMinStale is the MinStale a run with faults should ask for: one
// stale write when a fault exists to produce them (nemesis.StaleWriter:
// pause, delay, hold), so that a run in which no stale write reached the
// receiver is inconclusive rather than a pass; none otherwise.
func DefaultMinStale(faults []nemesis.Fault) int {
	for _, f := range faults {
		if _, ok := f.(nemesis.StaleWriter); ok {
			return 1
		}
	}
	return 0
}
