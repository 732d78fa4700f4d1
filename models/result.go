package models

import "time"

// Verdict is the answer a check gives, and what the exit code reports.
type Verdict string

// Verdicts.
const (
	Held         Verdict = "held"         // every resource is linearizable, on evidence
	Violated     Verdict = "violated"     // at least one resource is not
	Inconclusive Verdict = "inconclusive" // no violation found, but the checker gave up or the evidence is too thin
	// Interrupted: the run was stopped before it ended and no violation
	// was found in what it recorded; what it would have exercised is
	// unknown, so it is no pass.
	Interrupted Verdict = "interrupted"
)

// Kind selects the model a history is judged against.
type Kind uint8

// Models.
const (
	KindFenced   Kind = iota // the fenced register (the default)
	KindRegister             // the plain register, last writer wins
)

// String names the model.
func (k Kind) String() string {
	if k == KindRegister {
		return "register"
	}
	return "fenced-register"
}

// Options configure a check.
type Options struct {
	Kind   Kind
	Policy Policy
	// Timeout bounds the whole check; 0 means none. A check that runs out
	// of time is inconclusive, never held.
	Timeout time.Duration
}

// Result is what a checker concluded about a history.
type Result struct {
	Verdict      Verdict       `json:"verdict"`
	Checker      string        `json:"checker"`
	Model        string        `json:"model"`
	Policy       string        `json:"policy"`
	Resources    int           `json:"resources"`
	Violations   []Violation   `json:"violations,omitempty"`
	TimedOut     []string      `json:"timed_out,omitempty"` // resources the checker gave up on
	CappedWrites int           `json:"capped_unknown_writes"`
	DroppedWrite int           `json:"dropped_unknown_writes"`
	Elapsed      time.Duration `json:"elapsed_ns"`
}

// Violation explains why one resource's history has no legal order.
type Violation struct {
	Resource string `json:"resource"`
	// Rule names the kind of evidence (RuleStaleAccepted, …), so that a
	// smaller history can be asked for the same kind of violation.
	Rule string `json:"rule,omitempty"`
	// Summary is one sentence a person can act on.
	Summary string `json:"summary"`
	// Steps are the operations that make the violation, in invocation
	// order, in the style of the article's timeline table.
	Steps []Step `json:"steps"`
	// At is when the evidence was complete: the return of the culprit,
	// the operation whose answer the resource must not have given. The
	// first cause of a history is the violation with the earliest At.
	At int64 `json:"at_ns"`
	// Claims are the statements the explanation makes, each about the
	// history the user recorded and checkable by a program (Claim).
	Claims []Claim `json:"claims,omitempty"`
}

// First returns the position in Violations of the first cause: the
// violation whose evidence was complete earliest, on a tie the one of the
// resource whose name sorts first; -1 when there is none.
func (r *Result) First() int {
	first := -1
	for i, v := range r.Violations {
		if first < 0 || v.At < r.Violations[first].At || v.At == r.Violations[first].At && v.Resource < r.Violations[first].Resource {
			first = i
		}
	}
	return first
}

// Step is one row of a violation's timeline.
type Step struct {
	OpID     int    `json:"op"`
	Process  int    `json:"process"`
	Call     int64  `json:"call_ns"`
	Return   int64  `json:"return_ns"` // histories.Infinity when unknown
	Event    string `json:"event"`
	Expected string `json:"expected"` // what the resource should have done
	// Culprit marks the operation whose answer the resource must not
	// have given; the other steps are the evidence around it.
	Culprit bool `json:"culprit,omitempty"`
	// Initial marks the state the resource held before the run, which no
	// process wrote.
	Initial bool `json:"initial,omitempty"`
}
