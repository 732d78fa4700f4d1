package explain

import (
	"fmt"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// Result is a check's result with each violation worded: one Violation
// per resource the checker blamed, in the same order.
type Result struct {
	check.Result
	Violations []Violation `json:"violations,omitempty"`
}

// Explain words the violations of res, which judged ops with opts: for
// each blamed resource, the evidence that was complete earliest (see
// explainResource).
func Explain(ops []histories.Operation, res check.Result, opts check.Options) Result {
	out := Result{Result: res}
	for _, b := range res.Blames {
		u := newUniverse(ops, b.Resource, opts)
		out.Violations = append(out.Violations, explainResource(u, b, opts).violation(b.Resource))
	}
	return out
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
	// Trace is the W3C trace id the operation's requests carried
	// (histories.Operation.Trace), by which a person finds them in the
	// receiver's logs; empty when the target carries none.
	Trace string `json:"trace,omitempty"`
}

// Headline is the violation in one line, for a verdict's reason: the
// resource, when its evidence was complete, and the summary.
func (v *Violation) Headline() string {
	return fmt.Sprintf("%s at %s: %s", termsafe.String(v.Resource), when(v.At), v.Summary)
}
