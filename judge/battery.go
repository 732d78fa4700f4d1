package judge

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/logscan"
)

// The gates of a conformance battery (DecideBattery), beside
// GateReceiverLog.
const (
	// GateScenarios: the battery's rows decided: one failed, or every
	// one that ran passed.
	GateScenarios Gate = "scenarios"
	// GateNotRun: scenarios were not played, because the receiver had
	// gone away and could not be started again; none that ran failed.
	GateNotRun Gate = "not-run"
)

// Battery is what the verdict of a conformance battery (fencecheck
// verify, verify-issuer) stands on: its failed rows, with the root causes
// they may follow from, the scenarios it could not play, and the log of
// the receiver it started. A battery has no history to check: each of its
// rows was judged by its own scenario, and this is the rule that turns
// the rows into the verdict every command that judges reports.
type Battery struct {
	// Failed are the rows that failed, in the table's order; the
	// receiver's log's row among them when the log shows a bug.
	Failed []FailedScenario
	// NotRun names the scenarios that were not played, and Stopped says
	// why: the receiver went away during an earlier one, and fencecheck
	// could not start it again.
	NotRun  []string
	Stopped string
	// ReceiverLog is what the log of a receiver the battery started
	// showed; nil without one.
	ReceiverLog *logscan.Outcome
	_           struct{}
}

// FailedScenario is a failed row of a battery.
type FailedScenario struct {
	Name string
	// FollowsFrom names the failed rows this failure may follow from:
	// a receiver that keeps one store for every resource fails most
	// scenarios for that one reason, and its scope row is what to fix
	// first. Empty for a failure that stands on its own.
	FollowsFrom []string
	_           struct{}
}

// DecideBattery is a battery's verdict, the gate that decided it and its
// reason. A failed row makes it violated whatever else happened, and the
// reason names the failures root causes first ("scope failed, and
// equal-token-repeat and two-first-writers may follow from it"). With no
// failure, scenarios that were not played make it inconclusive (what
// they test is unknown), and so does a receiver's log that could not be
// read (a panic or race it shows may be missed). Otherwise it held: a
// skipped or informational row is no failure.
func DecideBattery(b Battery) (Verdict, Gate, string) {
	notRun := ""
	if len(b.NotRun) > 0 {
		notRun = fmt.Sprintf("%s not run: %s", listNames(b.NotRun), b.Stopped)
	}
	switch {
	case len(b.Failed) > 0:
		gate := GateScenarios
		if len(b.Failed) == 1 && b.ReceiverLog.Fails() {
			gate = GateReceiverLog // the log's row is the only failure
		}
		reason := failuresReason(b.Failed)
		if notRun != "" {
			reason += "; " + notRun
		}
		return Violated, gate, reason
	case notRun != "":
		return Inconclusive, GateNotRun, "no scenario failed, but " + notRun
	case b.ReceiverLog.Unread():
		return Inconclusive, GateReceiverLog, b.ReceiverLog.UnreadReason()
	}
	return Held, GateScenarios, "no scenario failed"
}

// failuresReason names the failed rows, root causes first: each failed
// row that others may follow from, with them, in the table's order; then
// the failures that stand on their own. A row that may follow from
// several is named with the first, and one that follows from a row that
// itself follows from another, with that other.
func failuresReason(failed []FailedScenario) string {
	first := map[string]string{} // a failed row → the first failed row it may follow from
	for _, f := range failed {
		first[f.Name] = ""
	}
	for _, f := range failed {
		for _, r := range f.FollowsFrom {
			if _, ok := first[r]; ok && r != f.Name {
				first[f.Name] = r
				break
			}
		}
	}
	root := func(name string) string {
		for seen := map[string]bool{name: true}; first[name] != "" && !seen[first[name]]; seen[name] = true {
			name = first[name]
		}
		return name
	}
	followers := map[string][]string{}
	for _, f := range failed {
		if r := root(f.Name); r != f.Name {
			followers[r] = append(followers[r], f.Name)
		}
	}
	var parts, rest []string
	for _, f := range failed {
		switch {
		case len(followers[f.Name]) > 0:
			parts = append(parts, fmt.Sprintf("%s failed, and %s may follow from it", f.Name, listNames(followers[f.Name])))
		case root(f.Name) == f.Name:
			rest = append(rest, f.Name)
		}
	}
	switch {
	case len(rest) == 0:
	case len(parts) == 0:
		parts = append(parts, listNames(rest)+" failed")
	default:
		parts = append(parts, listNames(rest)+" failed too")
	}
	return strings.Join(parts, "; ")
}

// listNames words names as a list: "a", "a and b", "a, b and c".
func listNames(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
