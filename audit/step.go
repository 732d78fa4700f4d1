package audit

import (
	"time"

	"github.com/fencecheck/fencecheck/judge"
)

// The steps, in the article's order.
const (
	StepIssuer = iota + 1
	StepSequence
	StepEnforcement
	StepPausedWorker
	StepFixes
	StepLimits
)

// stepNames name the steps as the article says them.
var stepNames = map[int]string{
	StepIssuer:       "the token issuer",
	StepSequence:     "its sequence survives the failures",
	StepEnforcement:  "the enforcement point",
	StepPausedWorker: "the paused-worker test",
	StepFixes:        "the tempting fixes",
	StepLimits:       "what this does not cover",
}

// Step is one step of an audit, as the report shows it.
type Step struct {
	Number int    `json:"step"`
	Name   string `json:"name"`
	// Result is the step's verdict (held, violated, inconclusive) for a
	// step that judges, "info" for one that informs, "not tested" for
	// the issuer when fencecheck's own gave the tokens, "cut" for a step
	// the budget stopped before it judged anything.
	Result string `json:"result"`
	// Reason says the result in words.
	Reason string `json:"reason"`
	// Evidence is what the step saw, a line each.
	Evidence []string `json:"evidence"`
	// Runs are the run directories the step stored, relative to the
	// audit's directory.
	Runs []string `json:"runs,omitempty"`
	// Budget is the step's share of the audit's budget (0: none);
	// Elapsed how long it took; Cut what the budget cut of it.
	Budget  time.Duration `json:"budget_ns,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	Cut     string        `json:"cut,omitempty"`

	verdict  judge.Verdict // the judge's, for a step that judges
	untested string        // what the step could not test
}

// newStep is step number n, to be filled.
func newStep(n int) Step { return Step{Number: n, Name: stepNames[n], Result: "info"} }

// judged sets a step's result from a verdict the judge made.
func (s *Step) judged(v judge.Verdict, reason string) {
	s.verdict, s.Result, s.Reason = v, string(v), reason
}

// forJudge is what judge.DecideAudit needs of the step.
func (s *Step) forJudge() judge.AuditStep {
	return judge.AuditStep{Number: s.Number, Name: s.Name, Verdict: s.verdict, Reason: s.Reason, Cut: s.Cut, Untested: s.untested}
}
