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
	"github.com/fencecheck/fencecheck/model"
	"github.com/fencecheck/fencecheck/targets"
)

// Result is a scenario's result.
type Result string

// Results. Info scenarios show a documented limit and never fail; skipped
// ones could not run against this target (a restart needs --exec).
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
}

// Options configure a battery.
type Options struct {
	Policy           model.Policy
	RequireExclusive bool
	// RunID makes the resource names of this battery fresh; default: the
	// current time in base 36.
	RunID string
	// Rounds of each race scenario; default 5.
	Rounds int
	// Recorder receives every operation; nil records nothing.
	Recorder *histories.Recorder
}

// Restarter is implemented by targets whose receiver can be crashed and
// started again (a receiver process of --exec).
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

// Run plays every scenario against t, one after the other.
func Run(ctx context.Context, t targets.Target, o Options) []Row {
	if o.RunID == "" {
		o.RunID = strconv.FormatInt(time.Now().UnixMilli(), 36)
	}
	if o.Rounds <= 0 {
		o.Rounds = 5
	}
	var procs atomic.Int64
	var out []Row
	for _, sc := range scenarios {
		s := &script{t: t, o: o, scenario: sc.name, procs: &procs}
		s.mark(histories.FStart, sc.hazard)
		res := sc.run(ctx, s)
		res.Scenario, res.Hazard = sc.name, sc.hazard
		s.mark(histories.FStop, fmt.Sprintf("%s: observed %s", res.Result, res.Observed))
		out = append(out, res)
	}
	return out
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
