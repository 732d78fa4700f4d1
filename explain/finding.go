package explain

import (
	"cmp"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// A finding is what a checker or Explain's rules found wrong with one
// resource: a kind (which says how it is worded, wording.go), the rule it
// belongs to, the operations in named roles, and the time its evidence
// was complete. Its claims (Claim) are derived from the roles, so the
// text and the machine-checkable statements say the same thing; both are
// about the resource's original history (universe), whatever sub-history
// the finding was made on.
type finding struct {
	kind    findingKind
	rule    string
	at      int64 // when the evidence was complete: the culprit's return
	culprit *histories.Operation
	policy  model.Policy

	// Roles; each kind's constant says which it fills.
	newer   *histories.Operation // a write in effect, with a token that bars another
	shown   *histories.Operation // what shows newer in effect by a time: newer itself (returned), or a read of its value
	older   *histories.Operation // the write whose value a read returned
	highest *histories.Operation // the highest write sent before a rejection answered, or the earliest that could justify it
	later   *histories.Operation // an operation after a rejection that shows nothing justified it in time
	first   *histories.Operation // two writes of one token; second is the culprit's or the culprit itself
	second  *histories.Operation
	// seen holds, for a write that took effect although its outcome is
	// unknown, the read that shows it did.
	seen map[*histories.Operation]*histories.Operation
	// bounds: why neither of two writes of one token can take effect
	// first (conflict).
	bounds []orderBound
	// origins are, for each read the finding names, the writes of the
	// value it returned, with why each cannot have produced it by then
	// (causeNone: it may).
	origins map[*histories.Operation][]origin
	context []*histories.Operation // operations concurrent with the culprit (fallback)
	advice  bool                   // the history holds under accept-equal (equal-accepted, strict)
}

// origin is a write of a value a read returned, and why it cannot have
// produced it then.
type origin struct {
	w      *histories.Operation
	why    cause
	barrer *histories.Operation // the accepted write that bars it (causeBarred)
}

// orderBound says why a write cannot take effect before of: of took
// effect by the time hi returned (hi is of, accepted; a read of its
// value; or an accepted write that bars it), yet the next write after the
// other one takes effect no earlier than push was invoked (the other
// write, or a read of its value).
type orderBound struct {
	of, hi, push *histories.Operation
}

// findingKind says which renderer words a finding, and which roles it fills.
type findingKind uint8

const (
	kindStaleAccepted  findingKind = iota // culprit: an accepted write; newer bars it and was shown in effect before it was sent
	kindZeroAccepted                      // culprit: an accepted write of token 0, under strict
	kindEqualAccepted                     // first and second: accepted (or seen) writes of one token, under strict
	kindWrongRejection                    // culprit: a rejection; highest: the highest write sent before it answered, or nil
	kindLateRejection                     // culprit: a rejection; later: a write it would bar, or a read of older, sent after it answered
	kindRejectionOrder                    // culprit: a rejection; highest: the earliest write that could justify it; no order lets one in time
	kindReadToken                         // culprit: a read; older: the only write of its value that may have applied, with another token
	kindReadNotApplied                    // culprit: a read whose value no write can have produced by then (origins)
	kindReadNowhere                       // culprit: a read of a value no write wrote
	kindReadUnwritten                     // culprit: a read of nothing that reported a token other than 0
	kindStaleRead                         // culprit: a read of older; newer bars older and was shown in effect before the read began
	kindStaleReadOrder                    // culprit: a read of older; newer was sent after older returned and returned before the read began
	kindUnwrittenRead                     // culprit: a read of nothing; shown: a write in effect (or a read of a value) before it began
	kindConflict                          // first and second share a token and neither can take effect first (bounds)
	kindOrderNoOrder                      // culprit: the read of older (outcome unknown), which newer bars and was shown in effect before it was sent
	kindNoOrder                           // culprit: the operation the search could not place; context: those concurrent with it
)

// The claims a finding makes, in Claim.Kind. Each is a statement about
// the original history of the finding's resource, checkable on its own.
const (
	// ClaimRecorded: the operation Op has the fields in Record.
	ClaimRecorded = "recorded"
	// ClaimReturnedBefore: Op returned before Other was invoked.
	ClaimReturnedBefore = "returned-before"
	// ClaimBars: once a write with Op's token is the highest accepted,
	// a write with Other's token may no longer be accepted under Policy
	// (not MayAccept(Op's token, Other's token)).
	ClaimBars = "bars"
	// ClaimNeverAcceptable: Op's token may never be accepted under
	// Policy (not MayAccept(0, its token): token 0 under strict).
	ClaimNeverAcceptable = "never-acceptable"
	// ClaimDoesNotJustify: Op's token, as the highest accepted, does not
	// justify rejecting Other (not MayReject(Op's token, Other's token)).
	ClaimDoesNotJustify = "does-not-justify"
	// ClaimUnjustified: no write of the resource that may have taken
	// effect (accepted, unknown, or the state before the run) and was
	// invoked at or before the rejection Op returned carries a token
	// that justifies rejecting it; Other is one with the highest token
	// among those writes, -1 when none was invoked by then.
	ClaimUnjustified = "unjustified"
	// ClaimEarliestJustifier: Other is a write that may have taken
	// effect, whose token justifies rejecting Op, and that was invoked no
	// later than any other such write.
	ClaimEarliestJustifier = "earliest-justifier"
	// ClaimWrittenBy: the writes of the resource that wrote Value are
	// exactly Ops, whatever their outcome.
	ClaimWrittenBy = "written-by"
	// ClaimHoldsUnder: the resource's history holds under Policy.
	ClaimHoldsUnder = "holds-under"
)

// Claim is one statement of a violation's explanation about the history
// the user recorded, in a form a program can check (see the Claim*
// constants). Operations are named by their IDs; -1 is none.
type Claim struct {
	Kind   string  `json:"kind"`
	Op     int     `json:"op"`
	Other  int     `json:"other"`
	Ops    []int   `json:"ops,omitempty"`
	Value  string  `json:"value,omitempty"`
	Policy string  `json:"policy,omitempty"`
	Record *Record `json:"record,omitempty"`
}

// Record is an operation's fields as the history recorded them.
type Record struct {
	F        string `json:"f"`
	Status   string `json:"status"`
	Token    uint64 `json:"token"`
	HasToken bool   `json:"has_token,omitempty"`
	Value    string `json:"value,omitempty"`
	HasValue bool   `json:"has_value,omitempty"`
	Call     int64  `json:"call_ns"`
	Return   int64  `json:"return_ns"`
	Initial  bool   `json:"initial,omitempty"`
}

func recordOf(op *histories.Operation) *Record {
	return &Record{F: op.F, Status: op.Status.String(), Token: op.Token, HasToken: op.HasToken, Value: op.Value,
		HasValue: op.HasValue, Call: op.Call, Return: op.Return, Initial: op.Initial}
}

// claimSet collects a finding's claims, and the operations they name.
type claimSet struct {
	policy model.Policy
	list   []Claim
	named  []*histories.Operation
}

func id(op *histories.Operation) int {
	if op == nil {
		return -1
	}
	return op.ID
}

func (c *claimSet) recorded(ops ...*histories.Operation) {
	for _, op := range ops {
		if op == nil || slices.Contains(c.named, op) {
			continue
		}
		c.named = append(c.named, op)
		c.list = append(c.list, Claim{Kind: ClaimRecorded, Op: op.ID, Other: -1, Record: recordOf(op)})
	}
}

func (c *claimSet) pair(kind string, a, b *histories.Operation) {
	c.recorded(a, b)
	c.list = append(c.list, Claim{Kind: kind, Op: id(a), Other: id(b), Policy: c.policy.String()})
}

// writtenBy claims the writes of value, and for each that cannot have
// produced it, why.
func (c *claimSet) writtenBy(read *histories.Operation, origins []origin) {
	value := read.Value
	ids := make([]int, 0, len(origins))
	for _, o := range origins {
		ids = append(ids, o.w.ID)
		c.recorded(o.w)
	}
	c.list = append(c.list, Claim{Kind: ClaimWrittenBy, Op: -1, Other: -1, Ops: ids, Value: value})
	for _, o := range origins {
		switch o.why {
		case causeSentAfter:
			c.pair(ClaimReturnedBefore, read, o.w)
		case causeNeverAcceptable:
			c.recorded(o.w)
			c.list = append(c.list, Claim{Kind: ClaimNeverAcceptable, Op: o.w.ID, Other: -1, Policy: c.policy.String()})
		case causeBarred:
			c.pair(ClaimReturnedBefore, o.barrer, o.w)
			c.pair(ClaimBars, o.barrer, o.w)
		}
	}
}

// sighting claims what shows that newer had taken effect by shown's
// return: newer returned, or a read returned its value.
func (f *finding) sighting(c *claimSet, newer, shown *histories.Operation) {
	c.recorded(newer, shown)
	if shown != nil && shown != newer && !shown.IsWrite() {
		c.writtenBy(shown, f.origins[shown])
	}
}

// took claims that w took effect: it was accepted, or a read shows it.
func (f *finding) took(c *claimSet, w *histories.Operation) {
	c.recorded(w)
	if r := f.seen[w]; r != nil {
		c.recorded(r)
		c.writtenBy(r, f.origins[r])
	}
}

// claims derives the finding's claims from its roles.
func (f *finding) claims() claimSet {
	c := claimSet{policy: f.policy}
	r := f.culprit
	switch f.kind {
	case kindStaleAccepted:
		f.sighting(&c, f.newer, f.shown)
		c.pair(ClaimReturnedBefore, f.shown, r)
		c.pair(ClaimBars, f.newer, r)
	case kindZeroAccepted:
		c.recorded(r)
		c.list = append(c.list, Claim{Kind: ClaimNeverAcceptable, Op: r.ID, Other: -1, Policy: f.policy.String()})
	case kindEqualAccepted:
		f.took(&c, f.first)
		f.took(&c, f.second)
		c.pair(ClaimBars, f.first, f.second)
		c.pair(ClaimBars, f.second, f.first)
		if f.advice {
			c.list = append(c.list, Claim{Kind: ClaimHoldsUnder, Op: -1, Other: -1, Policy: model.AcceptEqual.String()})
		}
	case kindWrongRejection:
		c.recorded(r, f.highest)
		c.pair(ClaimUnjustified, r, f.highest)
	case kindLateRejection:
		c.recorded(r)
		x := f.later
		if x.IsWrite() {
			f.took(&c, x)
			c.pair(ClaimBars, r, x)
		} else if x.HasValue {
			c.recorded(x)
			c.writtenBy(x, f.origins[x])
			c.pair(ClaimDoesNotJustify, f.older, r)
		}
		c.pair(ClaimReturnedBefore, r, x)
	case kindRejectionOrder:
		c.recorded(r)
		c.pair(ClaimEarliestJustifier, r, f.highest)
	case kindReadToken, kindReadNotApplied, kindReadNowhere:
		c.recorded(r)
		c.writtenBy(r, f.origins[r])
	case kindReadUnwritten:
		c.recorded(r)
	case kindStaleRead:
		c.recorded(r)
		c.writtenBy(r, f.origins[r])
		f.sighting(&c, f.newer, f.shown)
		c.pair(ClaimReturnedBefore, f.shown, r)
		c.pair(ClaimBars, f.newer, f.older)
	case kindStaleReadOrder:
		c.recorded(r)
		c.writtenBy(r, f.origins[r])
		c.pair(ClaimReturnedBefore, f.older, f.newer)
		c.pair(ClaimReturnedBefore, f.newer, r)
	case kindUnwrittenRead:
		c.recorded(r)
		f.sighting(&c, f.newer, f.shown)
		c.pair(ClaimReturnedBefore, f.shown, r)
	case kindConflict:
		f.took(&c, f.first)
		f.took(&c, f.second)
		for _, b := range f.bounds {
			c.recorded(b.hi, b.push)
			switch {
			case !b.hi.IsWrite():
				c.writtenBy(b.hi, f.origins[b.hi])
			case b.hi != b.of:
				c.pair(ClaimBars, b.hi, b.of)
			}
			if !b.push.IsWrite() {
				c.writtenBy(b.push, f.origins[b.push])
			}
			c.pair(ClaimReturnedBefore, b.hi, b.push)
		}
	case kindOrderNoOrder:
		c.recorded(r)
		c.writtenBy(r, f.origins[r])
		f.sighting(&c, f.newer, f.shown)
		c.pair(ClaimReturnedBefore, f.shown, f.older)
		c.pair(ClaimBars, f.newer, f.older)
	case kindNoOrder:
		c.recorded(r)
		c.recorded(f.context...)
	}
	c.recorded(r)
	return c
}

// named returns the operations the finding names: the rows of its table.
func (f *finding) named() []*histories.Operation { return f.claims().named }

// within reports whether every operation the finding names is one of a
// sub-history's (member reports that of an ID; nil: every operation is).
func (f *finding) within(member func(id int) bool) bool {
	if member == nil {
		return true
	}
	for _, op := range f.named() {
		if !member(op.ID) {
			return false
		}
	}
	return true
}

// violation renders the finding for resource: its sentence and table come
// from the finding's kind (wording.go), its claims from its roles.
func (f *finding) violation(resource string) Violation {
	c := f.claims()
	w := f.words()
	v := Violation{Resource: resource, Rule: f.rule, Summary: w.summary, At: f.at, Claims: c.list}
	rows := slices.Clone(c.named)
	slices.SortStableFunc(rows, func(a, b *histories.Operation) int {
		return cmp.Or(cmp.Compare(a.Call, b.Call), cmp.Compare(a.ID, b.ID))
	})
	for _, op := range rows {
		v.Steps = append(v.Steps, Step{
			OpID: op.ID, Process: op.Process, Call: op.Call, Return: op.Return,
			Event: model.DescribeHistoryOp(op), Expected: w.expected(op), Culprit: op == f.culprit, Initial: op.Initial,
			Trace: op.Trace,
		})
	}
	return v
}
