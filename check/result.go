package check

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

// Result is what a checker concluded about a history. It names the
// operations that make each violation (Blames) but does not word them:
// package explain does.
type Result struct {
	Verdict   Verdict `json:"verdict"`
	Checker   string  `json:"checker"`
	Model     string  `json:"model"`
	Policy    string  `json:"policy"`
	Resources int     `json:"resources"`
	// Blames holds one entry per violating resource, in order of the
	// resources' names.
	Blames       []Blame       `json:"-"`
	TimedOut     []string      `json:"timed_out,omitempty"` // resources the checker gave up on
	CappedWrites int           `json:"capped_unknown_writes"`
	DroppedWrite int           `json:"dropped_unknown_writes"`
	Elapsed      time.Duration `json:"elapsed_ns"`
	// Notes say what Check did besides judging: why it fell back to
	// porcupine, what the second checker of Both found.
	Notes []Note `json:"-"`
	// Issuer holds the grants that break the token issuer's invariant
	// (CheckIssuer), in history order. Verdict does not count them: it is
	// the receiver's, given the tokens it was sent.
	Issuer []IssuerViolation `json:"issuer_violations,omitempty"`
}

// Blame is what a checker holds against one resource: the constraint that
// has no solution (Reason) and the operations, by ID, that make it, in
// the roles the reason gives them. -1 fills a role nobody plays.
type Blame struct {
	Resource string
	Reason   Reason
	// Op and Other are the operations the reason is about.
	Op, Other int
	// Seen and OtherSeen are, for Op and Other when they are writes of
	// unknown outcome, a read that shows the write took effect.
	Seen, OtherSeen int
	// Order says, for ReasonConflict, why neither write can take effect
	// first: Order[0] why Other cannot, Order[1] why Op cannot.
	Order [2]OrderBound
}

// OrderBound says why a write W of a token cannot take effect before
// another write of that token: W took effect by the time Hi returned (W
// itself, a read of its value, or an accepted write that bars it), yet the
// write after the other one takes effect no earlier than Push was invoked
// (the other write, or a read of its value).
type OrderBound struct {
	Hi, Push int
}

// Reason is the kind of constraint a checker found unsatisfiable.
type Reason uint8

const (
	// ReasonNoOrder: the search found no legal order; the checker names
	// no operation (porcupine).
	ReasonNoOrder Reason = iota
	// ReasonRead: Op, a read, returned a value or token that no write it
	// can have observed explains.
	ReasonRead
	// ReasonTokenZero: under strict, Op, a write of token 0, took effect
	// (Seen shows it, for an unknown write).
	ReasonTokenZero
	// ReasonTokenTwice: under strict, Op and Other, writes of one token,
	// both took effect.
	ReasonTokenTwice
	// ReasonConflict: Op and Other share a token and neither can take
	// effect first (Order).
	ReasonConflict
	// ReasonOrder: Op (a write, or a read of one) must come before Other
	// (a write with a higher token, or what shows it in effect), yet was
	// invoked only after Other had taken effect.
	ReasonOrder
	// ReasonLateRejection: Op, a rejection, returned before Other, the
	// next write that could justify it, could take effect (-1: no write
	// could).
	ReasonLateRejection
	// ReasonUnjustified: Op, a rejection, could not be justified in time
	// by any order the other answers allow.
	ReasonUnjustified
)

// Blamed returns the resources that have a blame, in order.
func (r *Result) Blamed() []string {
	out := make([]string, len(r.Blames))
	for i, b := range r.Blames {
		out[i] = b.Resource
	}
	return out
}
