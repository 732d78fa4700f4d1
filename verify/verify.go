// Package verify is a conformance battery: named, deterministic scenarios,
// each a scripted timeline that reproduces one hazard against any
// targets.Target (memory, SQL, HTTP), each judged against what a fenced
// register must answer. Every scenario writes to fresh resources, so
// scenarios never interfere, and records its operations in one history.
//
//	Run ──> scenario 1 ──write/read──> Target
//	    ──> scenario 2 ──…             │
//	    <── Report (scenario | expected | observed | result) + history
package verify

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets"
)

// Result is a scenario's result.
type Result string

// Results. Info scenarios show a documented limit and never fail; skipped
// ones could not run against this target (a restart needs a Restarter).
const (
	Pass Result = "pass"
	Fail Result = "FAIL"
	Info Result = "info"
	Skip Result = "skip"
)

// Row is one row of the table.
type Row struct {
	Scenario string `json:"scenario"`
	Hazard   string `json:"hazard"`
	Expected string `json:"expected"`
	Observed string `json:"observed"`
	Result   Result `json:"result"`
	// FollowsFrom names the failed root-cause rows (scope,
	// restart-durability) this failed row may follow from: fix those
	// first (markRootCauses). Empty for a failure of its own.
	FollowsFrom []string `json:"follows_from,omitempty"`
	// NotRun marks a scenario that was not played, or not judged: the
	// receiver had gone away during an earlier one and could not be
	// started again, or the battery's context ended during or before
	// it. Its Result is Skip, its Observed says why.
	NotRun bool `json:"not_run,omitempty"`
	// exited: the receiver went away during the scenario, which failed
	// for that (survive); lastLines are the last lines it wrote, for
	// WriteText to quote in full.
	exited    bool
	lastLines []string
}

// Options configure a battery; DefaultOptions gives the defaults.
type Options struct {
	Policy           model.Policy
	RequireExclusive bool
	// RunID makes the resource names of this battery fresh; empty, the
	// current time in base 36.
	RunID string
	// Rounds of each race scenario; at least one.
	Rounds int
	// Recorder receives every operation; nil records nothing.
	Recorder *histories.Recorder
	// Terms words the settings the rows point at as the caller spells
	// them (the CLI as flags); nil, as Setting names them.
	Terms Terms
	// Leases issues the scenarios' tokens when set: each owner of a
	// scenario's resource is granted a lease, and writes carry its token.
	// Nil, the scenarios use their scripted tokens (41 and 42, …).
	// digit-boundaries always writes scripted tokens: no issuer issues
	// 2^64-1.
	Leases lease.Service
	// MaxToken is the largest token the receiver stores, as its user
	// declares it; 0: what the target declares (targets.TokenDomain),
	// else 2^64-1. The battery's domain is the smaller of the two (see
	// Domain): digit-boundaries tests the boundaries inside it and skips
	// the others, and no scenario sends a token above it.
	MaxToken uint64
	_        struct{} // keyed fields only: the struct may grow
}

// MinMaxToken is the smallest domain the battery plays in: its scripted
// tokens go up to 1000.
const MinMaxToken = 1000

// DefaultOptions are the battery's defaults: the strict policy, five
// rounds of each race.
func DefaultOptions() Options { return Options{Rounds: 5} }

// A Setting is what a row's expectation or skip points at, named in Go.
type Setting string

// The settings the battery's rows point at.
const (
	RequireExclusive  Setting = "Options.RequireExclusive"
	RestartableTarget Setting = "a target that implements verify.Restarter"
	DeclaredMaxToken  Setting = "Options.MaxToken"
)

// Terms words settings as the battery's caller changes them.
type Terms interface {
	Setting(Setting) string
}

// word is s in the caller's terms.
func (o *Options) word(s Setting) string {
	if o.Terms == nil {
		return string(s)
	}
	return o.Terms.Setting(s)
}

// Restarter is implemented by targets whose receiver can be crashed and
// started again (a receiver process, targets/process).
type Restarter interface {
	Restart(ctx context.Context) error
}

// scenario is one named timeline.
type scenario struct {
	name   string
	hazard string
	run    func(ctx context.Context, s *script) Row
}

// scenarios is the battery, in the order the table shows it.
var scenarios = []scenario{
	staleAfterNewer,
	equalTokenRepeat,
	oldTokenFirst,
	checkThenSetRace,
	twoFirstWriters,
	digitBoundaries,
	scope,
	acknowledgedWrites,
	restartDurability,
}

// Names lists the scenarios.
func Names() []string {
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.name
	}
	return names
}

// Run plays every scenario against t, one after the other. A receiver
// that goes away during a scenario fails it; one fencecheck started
// (Reviver) is started again for the next, and when that cannot be, the
// scenarios after are rows not run (see survive). When ctx ends during a
// scenario, its row is not judged and the rest are not run
// (interrupted). Run fails on bad
// Options, and when the lease issuer fails (Options.Leases): it returns
// the rows played until then.
func Run(ctx context.Context, t targets.Target, o Options) ([]Row, error) {
	if o.Rounds < 1 {
		return nil, fmt.Errorf("verify: Rounds: %d, want at least 1", o.Rounds)
	}
	o.MaxToken = targets.Domain(t, o.MaxToken)
	if o.MaxToken < MinMaxToken {
		return nil, fmt.Errorf("verify: the receiver's largest token is %d, and the battery's scripted tokens go up to %d", o.MaxToken, MinMaxToken)
	}
	if o.RunID == "" {
		o.RunID = strconv.FormatInt(time.Now().UnixMilli(), 36)
	}
	var procs atomic.Int64
	var out []Row
	stopped := ""
	for _, sc := range scenarios {
		if stopped != "" {
			out = append(out, notRun(sc.name, sc.hazard, stopped))
			continue
		}
		s := &script{t: t, o: o, scenario: sc.name, procs: &procs}
		s.mark(histories.FStart, sc.hazard)
		res := sc.run(ctx, s)
		if s.err != nil && ctx.Err() == nil { // the context's end is the row's (interrupted)
			return out, s.err
		}
		res.Scenario, res.Hazard = sc.name, sc.hazard
		if stopped = interrupted(ctx, &res); stopped == "" {
			stopped = s.survive(ctx, &res)
		}
		s.mark(histories.FStop, fmt.Sprintf("%s: observed %s", res.Result, res.Observed))
		out = append(out, res)
	}
	markRootCauses(out)
	return out, nil
}

// Passed reports whether every required scenario passed: none failed.
func Passed(outcomes []Row) bool {
	for _, o := range outcomes {
		if o.Result == Fail {
			return false
		}
	}
	return true
}
