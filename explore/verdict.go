package explore

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/harness"
)

// Totals is what the checked runs of a sweep exercised together: the
// runs whose histories were checked to the end with no violation found
// (those that held, and those a coverage gate made inconclusive). A run
// whose check gave up, that lacked evidence or was interrupted adds
// nothing: what it did was not judged.
type Totals struct {
	Runs          int `json:"runs"`
	Operations    int `json:"operations"`
	StaleWrites   int `json:"stale_writes"`
	StaleRejected int `json:"stale_rejected"`
	StaleAccepted int `json:"stale_accepted"`
	StaleUnknown  int `json:"stale_unknown"`
	// FaultActions counts each fault's actions; Drawn the runs that had
	// each fault.
	FaultActions map[string]int `json:"fault_actions"`
	Drawn        map[string]int `json:"drawn"`
	// MinStale is the largest stale-write gate a run asked for.
	MinStale int `json:"min_stale"`
	// IssuerRuns had an issuer fault; GrantsAfterFailover is their
	// lease grants after a server the fault took down came back.
	IssuerRuns          int `json:"issuer_fault_runs,omitempty"`
	GrantsAfterFailover int `json:"grants_after_failover,omitempty"`
}

// add counts a checked run.
func (t *Totals) add(e *Entry) {
	if t.FaultActions == nil {
		t.FaultActions, t.Drawn = map[string]int{}, map[string]int{}
	}
	t.Runs++
	t.Operations += e.Counts.Operations
	c := e.Coverage
	t.StaleWrites += c.StaleWrites
	t.StaleRejected += c.StaleRejected
	t.StaleAccepted += c.StaleAccepted
	t.StaleUnknown += c.StaleUnknown
	for f, n := range c.FaultActions {
		t.FaultActions[f] += n
	}
	for _, f := range e.faults {
		t.Drawn[f]++
	}
	t.MinStale = max(t.MinStale, e.minStale)
	if e.issuerFaults {
		t.IssuerRuns++
		t.GrantsAfterFailover += c.GrantsAfterFailover
	}
}

// gaps are the hazards the checked runs were asked to exercise and did
// not, together: a fault that never acted in any run that had it, fewer
// stale writes in all than the largest gate a run asked for, issuer
// faults with no grant after a failover in any run.
func (t *Totals) gaps() []string {
	var out []string
	for _, f := range slices.Sorted(maps.Keys(t.Drawn)) {
		if t.FaultActions[f] == 0 {
			out = append(out, fmt.Sprintf("%s never acted in the %s that had it", f, plural(t.Drawn[f], "checked run")))
		}
	}
	if t.StaleWrites < t.MinStale {
		out = append(out, fmt.Sprintf("%d stale writes were submitted in all, and a run asks for at least %d", t.StaleWrites, t.MinStale))
	}
	if t.IssuerRuns > 0 && t.GrantsAfterFailover == 0 {
		out = append(out, fmt.Sprintf("no lease was granted after a server the issuer faults took down came back, in %s", plural(t.IssuerRuns, "run")))
	}
	return out
}

// decide is the sweep's verdict: violated when any seed violated; held
// when no seed violated, the sweep was not interrupted, some seed held,
// and the checked runs together exercised the hazards of their faults
// (Totals.gaps); inconclusive otherwise. A seed that was inconclusive on
// its own is counted and shown, and does not make the sweep so: the
// seeds are judged together.
func (r *Result) decide() (check.Verdict, string) {
	switch {
	case r.Violated > 0:
		first := r.Failures[0]
		more := ""
		if r.Violated > 1 {
			more = fmt.Sprintf(" (and %d more seeds)", r.Violated-1)
		}
		return check.Violated, fmt.Sprintf("seed %d%s: %s", first.Seed, more, first.Result.Reason)
	case r.Stopped == StoppedInterrupted:
		return check.Inconclusive, fmt.Sprintf("the sweep was interrupted after %d runs, none of which violated", r.Runs)
	case r.Runs == 0:
		return check.Inconclusive, "no seed was run"
	case r.Held == 0:
		return check.Inconclusive, fmt.Sprintf("no seed held: all %d runs were inconclusive (%s)", r.Runs, r.gateList())
	}
	if gaps := r.Totals.gaps(); len(gaps) > 0 {
		return check.Inconclusive, "no seed violated, but " + strings.Join(gaps, "; ")
	}
	return check.Held, fmt.Sprintf("no violation in %d runs, which together exercised %d stale writes (%d rejected) and every fault they had (%s)",
		r.Runs, r.Totals.StaleWrites, r.Totals.StaleRejected, actions(r.Totals.FaultActions))
}

// gateList words the inconclusive runs by the gate that decided them.
func (r *Result) gateList() string {
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(r.ByGate)) {
		parts = append(parts, fmt.Sprintf("%s %d", g, r.ByGate[g]))
	}
	return strings.Join(parts, ", ")
}

// actions words fault actions, in name order.
func actions(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", f, m[f]))
	}
	return strings.Join(parts, ", ")
}

// byGate counts inconclusive runs per gate.
type byGate = map[harness.Gate]int
