package judge

import (
	"fmt"
	"strings"
)

// GateAudit: an audit's verdict, decided by its steps (DecideAudit).
const GateAudit Gate = "audit"

// AuditStep is what DecideAudit needs of one step of an audit.
type AuditStep struct {
	Number int
	Name   string
	// Verdict is the step's judgement (a battery's, a sweep's); empty for
	// a step that informs and does not judge.
	Verdict Verdict
	Reason  string
	// Cut says what the audit's budget cut of the step; empty when the
	// step ran to its end.
	Cut string
	// Untested says what the step could not test (the user's own token
	// issuer, when the audit used fencecheck's); empty when it tested
	// what it is for.
	Untested string
}

// DecideAudit is an audit's verdict: violated when any step found a
// violation, naming the first such step; inconclusive when any step was
// inconclusive, cut by the budget or could not test what it is for; held
// only when every step that judges held on evidence.
func DecideAudit(steps []AuditStep) (Verdict, Gate, string) {
	var violated, open []string
	for _, s := range steps {
		name := fmt.Sprintf("step %d (%s)", s.Number, s.Name)
		switch {
		case s.Verdict == Violated:
			violated = append(violated, name+": "+s.Reason)
		case s.Cut != "":
			open = append(open, name+" was cut by the budget: "+s.Cut)
		case s.Untested != "":
			open = append(open, name+": "+s.Untested)
		case s.Verdict == Inconclusive || s.Verdict == Interrupted:
			open = append(open, name+" was inconclusive: "+s.Reason)
		}
	}
	switch {
	case len(violated) > 0:
		return Violated, GateAudit, "a violation in " + strings.Join(violated, "; and in ")
	case len(open) > 0:
		return Inconclusive, GateAudit, "no violation, but " + strings.Join(open, "; ")
	}
	return Held, GateAudit, "every step held on evidence"
}
