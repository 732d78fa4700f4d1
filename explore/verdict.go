package explore

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/judge"
)

// decide is the sweep's verdict, by the judge's rule for a sweep
// (judge.DecideSweep).
func (r *Result) decide() (judge.Verdict, string) {
	s := judge.Sweep{Runs: r.Runs, Held: r.Held, Violated: r.Violated, ByGate: r.ByGate, Totals: r.Totals,
		Interrupted: r.Stopped == StoppedInterrupted}
	if len(r.Failures) > 0 {
		s.FirstSeed, s.FirstReason = r.Failures[0].Seed, r.Failures[0].Result.Reason
	}
	return judge.DecideSweep(s)
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
type byGate = map[judge.Gate]int
