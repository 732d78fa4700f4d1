package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Totals is what the checked runs of a sweep exercised together: the
// runs whose histories were checked to the end with no violation found
// (Exercised). A run whose check gave up, that lacked evidence or was
// interrupted adds nothing: what it did was not judged.
type Totals struct {
	Runs          int `json:"runs"`
	Operations    int `json:"operations"`
	StaleWrites   int `json:"stale_writes"`
	StaleRejected int `json:"stale_rejected"`
	StaleAccepted int `json:"stale_accepted"`
	StaleUnknown  int `json:"stale_unknown"`
	// The other hazards of the runs together (Coverage): what fencing
	// allows or does not cover, which a sweep's pass states as it does
	// its stale writes.
	OldTokenFirst     int `json:"old_token_first"`
	EqualTokenRepeats int `json:"equal_token_repeats"`
	ConcurrentWrites  int `json:"concurrent_writes"`
	UnknownOutcomes   int `json:"unknown_outcomes"`
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
	// Crashes are the receiver's crashes in all; StaleAfterCrash the
	// stale writes it answered after one.
	Crashes         int `json:"crashes,omitempty"`
	StaleAfterCrash int `json:"stale_after_crash,omitempty"`
}

// Exercised reports whether what a run exercised counts for a sweep: its
// history was checked to the end and no violation was found, so it held,
// or only a coverage gate (too few stale writes, an untested failover)
// made it inconclusive.
func Exercised(v Verdict, g Gate) bool {
	return v == Held || v == Inconclusive && (g == GateMinStale || g == GateFailover || g == GateCrash)
}

// RunTotals is the part of a run's judgement a sweep adds up.
type RunTotals struct {
	Operations int
	Coverage   Coverage
	// Faults name the faults the run had; MinStale is the stale-write gate
	// it asked for; IssuerFaults says it had a fault on the issuer.
	Faults       []string
	MinStale     int
	IssuerFaults bool
}

// Add counts a run that Exercised.
func (t *Totals) Add(run RunTotals) {
	if t.FaultActions == nil {
		t.FaultActions, t.Drawn = map[string]int{}, map[string]int{}
	}
	t.Runs++
	t.Operations += run.Operations
	c := run.Coverage
	t.StaleWrites += c.StaleWrites
	t.StaleRejected += c.StaleRejected
	t.StaleAccepted += c.StaleAccepted
	t.StaleUnknown += c.StaleUnknown
	t.OldTokenFirst += c.OldTokenFirst
	t.EqualTokenRepeats += c.EqualTokenRepeats
	t.ConcurrentWrites += c.ConcurrentWrites
	t.UnknownOutcomes += c.UnknownOutcomes
	t.Crashes += c.Crashes
	t.StaleAfterCrash += c.StaleAfterCrash
	for f, n := range c.FaultActions {
		t.FaultActions[f] += n
	}
	for _, f := range run.Faults {
		t.Drawn[f]++
	}
	t.MinStale = max(t.MinStale, run.MinStale)
	if run.IssuerFaults {
		t.IssuerRuns++
		t.GrantsAfterFailover += c.GrantsAfterFailover
	}
}

// gaps are the hazards the checked runs were asked to exercise and did
// not, together: a fault that never acted in any run that had it, fewer
// stale writes in all than the largest gate a run asked for, crashes of
// the receiver with no stale write after any, issuer faults with no
// grant after a failover in any run.
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
	if t.Crashes > 0 && t.StaleAfterCrash == 0 {
		out = append(out, fmt.Sprintf("no stale write reached the receiver after any of its %d crashes", t.Crashes))
	}
	if t.IssuerRuns > 0 && t.GrantsAfterFailover == 0 {
		out = append(out, fmt.Sprintf("no lease was granted after a server the issuer faults took down came back, in %s", plural(t.IssuerRuns, "run")))
	}
	return out
}

// Sweep is what the runs of a sweep of seeds concluded, run by run, for
// DecideSweep.
type Sweep struct {
	Runs, Held, Violated int
	// ByGate counts the inconclusive runs by the gate that made them so.
	ByGate map[Gate]int
	Totals Totals
	// Interrupted: the sweep was stopped before its last seed by its
	// context.
	Interrupted bool
	// FirstSeed and FirstReason are the lowest seed that violated and its
	// run's reason.
	FirstSeed   uint64
	FirstReason string
}

// DecideSweep is a sweep's verdict: violated when any seed violated; held
// when no seed violated, the sweep was not interrupted, some seed held,
// and the checked runs together exercised the hazards of their faults;
// inconclusive otherwise. A seed that was inconclusive on its own is
// counted and shown, and does not make the sweep so: the seeds are judged
// together.
func DecideSweep(s Sweep) (Verdict, string) {
	switch {
	case s.Violated > 0:
		more := ""
		if s.Violated > 1 {
			more = fmt.Sprintf(" (and %d more seeds)", s.Violated-1)
		}
		return Violated, fmt.Sprintf("seed %d%s: %s", s.FirstSeed, more, s.FirstReason)
	case s.Interrupted:
		return Inconclusive, fmt.Sprintf("the sweep was interrupted after %d runs, none of which violated", s.Runs)
	case s.Runs == 0:
		return Inconclusive, "no seed was run"
	case s.Held == 0:
		return Inconclusive, fmt.Sprintf("no seed held: all %d runs were inconclusive (%s)", s.Runs, gateList(s.ByGate))
	}
	if gaps := s.Totals.gaps(); len(gaps) > 0 {
		return Inconclusive, "no seed violated, but " + strings.Join(gaps, "; ")
	}
	return Held, fmt.Sprintf("no violation in %d runs, which together exercised %d stale writes (%d rejected) and every fault they had (%s)",
		s.Runs, s.Totals.StaleWrites, s.Totals.StaleRejected, actions(s.Totals.FaultActions))
}

// gateList words the inconclusive runs by the gate that decided them.
func gateList(byGate map[Gate]int) string {
	var parts []string
	for _, g := range slices.Sorted(maps.Keys(byGate)) {
		parts = append(parts, fmt.Sprintf("%d by the %s gate", byGate[g], g))
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

func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
