package models

import (
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// The fast checker explains a violation with the constraint that failed:
// mostly two times that contradict an order the model forces (a write with
// a lower token, or a read of it, begins only after a write with a higher
// token had taken effect), or a rejection that nothing could justify in
// time. Each finding names the operations the times come from. As in
// Explain, a finding's at is the return of the operation whose answer the
// resource must not have given.

// witness collects the rows of a finding without repeating an operation.
type witness struct {
	f    finding
	seen map[*histories.Operation]bool
}

func newWitness(rule string, at int64, format string, args ...any) *witness {
	return &witness{f: finding{rule: rule, at: at, summary: fmt.Sprintf(format, args...)}, seen: make(map[*histories.Operation]bool)}
}

func (w *witness) add(op *histories.Operation, format string, args ...any) *witness {
	if op != nil && !w.seen[op] {
		w.seen[op] = true
		w.f.rows = append(w.f.rows, row{op, fmt.Sprintf(format, args...)})
	}
	return w
}

func (w *witness) done() *finding { return &w.f }

func at(t int64) string {
	if t == histories.Infinity {
		return "∞"
	}
	return time.Duration(t).String()
}

// writerOf returns the write whose value read rd returned, or nil. It scans:
// it is called only to explain.
func (pb *fastProblem) writerOf(rd *histories.Operation) *histories.Operation {
	if rd == nil || rd.IsWrite() || !rd.HasValue {
		return nil
	}
	for k := range pb.all {
		if w := &pb.all[k]; w.kind != kindDropped && pb.op(w.op).Value == rd.Value {
			return pb.op(w.op)
		}
	}
	return nil
}

func readNowhereFinding(rd *histories.Operation) *finding {
	return newWitness(RuleReadOrigin, rd.Return, "read returned %q, a value no write in the history wrote", rd.Value).
		add(rd, "return a value some write wrote, or not found").done()
}

func readRejectedFinding(rd, w *histories.Operation) *finding {
	return newWitness(RuleReadOrigin, rd.Return, "read returned %q, the value of a write the resource rejected", rd.Value).
		add(w, "a rejected write changes nothing").
		add(rd, "return the value of an accepted write").done()
}

func readTokenFinding(rd, w *histories.Operation) *finding {
	if w == nil {
		return newWitness(RuleReadOrigin, rd.Return, "read found the resource unwritten but reported token %d; an unwritten resource has token 0", rd.Token).
			add(rd, "report token 0, or no token").done()
	}
	return newWitness(RuleReadOrigin, rd.Return, "read reported token %d for value %q, which was written with token %d", rd.Token, rd.Value, w.Token).
		add(w, "record token %d with the value", w.Token).
		add(rd, "report token %d with %q", w.Token, rd.Value).done()
}

// observer returns a read that shows w took effect, if any.
func (pb *fastProblem) observer(w *fastWrite) *histories.Operation {
	if w.beforeOp >= 0 {
		return pb.op(w.beforeOp)
	}
	return pb.op(w.afterOp)
}

func (pb *fastProblem) strictZeroFinding(w *fastWrite) *finding {
	op := pb.op(w.op)
	return newWitness(RuleStaleAccepted, op.Return, "write with token 0 took effect, but under the strict policy a token must exceed the highest accepted, which starts at 0").
		add(op, "reject token 0").
		add(pb.observer(w), "a read that observed the write").done()
}

func (pb *fastProblem) strictTwiceFinding(a, b *fastWrite) *finding {
	x, y := pb.op(a.op), pb.op(b.op)
	if y.Return < x.Return {
		x, y = y, x // the repeat is the one answered last
	}
	return newWitness(RuleEqualAccepted, y.Return, "token %d took effect twice; under the strict policy a repeat of the current token must be rejected (use --policy accept-equal if repeats are intended)", x.Token).
		add(x, "accept token %d", x.Token).
		add(pb.observer(a), "a read that observed it").
		add(y, "reject the repeat of token %d", y.Token).
		add(pb.observer(b), "a read that observed it").done()
}

func (pb *fastProblem) futureReadFinding(w *fastWrite, hi bound) *finding {
	rd, wop := pb.op(hi.op), pb.op(w.op)
	return newWitness(RuleReadOrigin, rd.Return, "read returned %q before the write of that value was sent", rd.Value).
		add(rd, "return a value written before the read ended").
		add(wop, "this write started only after the read had returned").done()
}

// conflictFinding explains two writes of one token (accept-equal) neither
// of which can take effect first: after a write, the next one takes effect
// only once the write and its reads have begun, yet each must have taken
// effect before the other's write or reads began.
func (pb *fastProblem) conflictFinding(a, b *fastWrite) *finding {
	x, y := pb.op(a.op), pb.op(b.op)
	w := newWitness(RuleNoOrder, max(x.Return, y.Return), "the writes of %q and %q share token %d, so either may take effect first, but neither can: %s; and %s",
		x.Value, y.Value, x.Token, pb.cannotPrecede(a, b), pb.cannotPrecede(b, a))
	w.add(x, "take effect before or after %q, with its reads in between", y.Value)
	w.add(y, "take effect before or after %q, with its reads in between", x.Value)
	for _, s := range []bound{a.hi(), b.hi(), a.push(), b.push()} {
		if op := pb.op(s.op); op != nil && !op.IsWrite() {
			w.add(op, "a read between its write and the next one")
		}
	}
	return w.done()
}

// cannotPrecede says why a cannot take effect before b: push(a) > hi(b).
func (pb *fastProblem) cannotPrecede(a, b *fastWrite) string {
	x, y := pb.op(a.op), pb.op(b.op)
	p, h := a.push(), b.hi()
	late := fmt.Sprintf("a read of %q began only at %s", x.Value, at(p.at))
	if p.op == a.op {
		late = fmt.Sprintf("%q was sent only at %s", x.Value, at(p.at))
	}
	early := fmt.Sprintf("a read had returned %q by %s", y.Value, at(h.at))
	if h.op == b.op {
		early = fmt.Sprintf("%q had taken effect by %s", y.Value, at(h.at))
	}
	return fmt.Sprintf("%q is not first, because %s, yet %s", x.Value, early, late)
}

// orderFinding explains lo > hi where lo comes from a write with a lower
// token (its invocation, or a read of it) and hi from a write with a
// higher token (its return, or a read of it): the lower token must take
// effect first, yet it began after the higher one had taken effect.
func (pb *fastProblem) orderFinding(lo, hi bound) *finding {
	x, y := pb.op(lo.op), pb.op(hi.op)
	older, newer := x, y
	if !x.IsWrite() {
		older = pb.writerOf(x)
	}
	if !y.IsWrite() {
		newer = pb.writerOf(y)
	}
	switch {
	case x.IsWrite() && x.Status == histories.StatusAccepted:
		w := newWitness(RuleStaleAccepted, x.Return, "stale write accepted: token %d was accepted although token %d had taken effect before it was sent; the resource must reject it (%s policy)",
			x.Token, newer.Token, pb.policy)
		w.add(newer, "accept token %d and remember it as the highest", newer.Token)
		w.add(y, "returned %q with token %d", newer.Value, newer.Token)
		return w.add(x, "reject token %d: token %d was already accepted", x.Token, newer.Token).done()
	case !x.IsWrite() && older == nil:
		w := newWitness(RuleStaleRead, x.Return, "read found the resource unwritten although the write of %q (token %d) had taken effect before the read began", newer.Value, newer.Token)
		w.add(newer, "record the value")
		w.add(y, "returned %q", newer.Value)
		return w.add(x, "return %q or a newer value", newer.Value).done()
	case !x.IsWrite():
		w := newWitness(RuleStaleRead, x.Return, "stale read: returned %q (token %d) although %q (token %d), which must take effect after it, had taken effect before the read began",
			x.Value, older.Token, newer.Value, newer.Token)
		w.add(older, "older write")
		w.add(newer, "newer write, in effect before the read began")
		w.add(y, "returned the newer value %q", newer.Value)
		return w.add(x, "return %q or a newer value", newer.Value).done()
	}
	w := newWitness(RuleNoOrder, x.Return, "no order explains the answers: the write of %q (token %d, %s) must take effect before the write of %q (token %d), but it was sent at %s, after the latter had taken effect by %s",
		x.Value, x.Token, x.Status, newer.Value, newer.Token, at(lo.at), at(hi.at))
	w.add(newer, "the write with the higher token")
	w.add(y, "shows the higher token in effect")
	return w.add(x, "take effect before token %d, or not at all", newer.Token).done()
}

// justifying describes the tokens that justify a rejection of token t:
// t or above, under either policy (see Policy.MayReject).
func justifying(t uint64) string { return fmt.Sprintf("of %d or above", t) }

// lateJustifyFinding explains a rejection that returned before every
// state's next write could take effect: something that comes before every
// write that would justify it began only after it answered.
func (pb *fastProblem) lateJustifyFinding(rj *fastReject, lost fastState) *finding {
	r, x := pb.op(rj.op), pb.op(lost.next.op)
	if newer := pb.newerBefore(lost.next); newer.op >= 0 {
		// The late operation contradicts an accepted write on its own: a
		// stale read or write explains more plainly than the rejection.
		return pb.orderFinding(lost.next, newer)
	}
	w := newWitness(RuleWrongRejection, r.Return, "wrong rejection: write with token %d was rejected, but no write with a token %s can have taken effect before it answered at %s",
		r.Token, justifying(r.Token), at(r.Return))
	w.add(r, "accept token %d: it is not stale", r.Token)
	switch {
	case x == nil:
	case x.IsWrite():
		w.f.summary += fmt.Sprintf(": the write with token %d, which must take effect before them, was only sent at %s", x.Token, at(x.Call))
		w.add(x, "takes effect before any write with a token %s", justifying(r.Token))
	default:
		older := pb.writerOf(x)
		if older == nil {
			w.f.summary += fmt.Sprintf(": a read that began later, at %s, still found the resource unwritten", at(x.Call))
		} else {
			w.f.summary += fmt.Sprintf(": a read that began later, at %s, still returned %q with token %d", at(x.Call), older.Value, older.Token)
			w.add(older, "a token below %d", r.Token)
		}
		w.add(x, "still saw a token below %d", r.Token)
	}
	return w.done()
}

// newerBefore looks for the plainest evidence against the operation that
// lo comes from (a write, or a read of one): an accepted write with a
// higher token (any token, for a read of nothing) that had returned before
// that operation began, which therefore took effect before it although it
// must come after. It returns the earliest such return, or op -1.
func (pb *fastProblem) newerBefore(lo bound) bound {
	x := pb.op(lo.op)
	if x == nil {
		return bound{histories.Infinity, -1}
	}
	older, anyToken := x, false
	if !x.IsWrite() {
		older = pb.writerOf(x)
		anyToken = older == nil
	}
	best := bound{histories.Infinity, -1}
	for i := range pb.writes {
		w := &pb.writes[i]
		if w.kind != kindAccepted || w.ret >= lo.at || (!anyToken && w.token <= older.Token) {
			continue
		}
		best = earlier(best, bound{w.ret, w.op})
	}
	return best
}

// lateFirstFinding explains a rejection that returned before the first write
// of the token group that must justify it could take effect.
func (pb *fastProblem) lateFirstFinding(s fastState, forced []fastWrite, g fastGroup) *finding {
	r, first := pb.op(s.due.op), pb.op(g.firstLo.op)
	if first == nil {
		first = pb.op(forced[0].op)
	}
	w := newWitness(RuleWrongRejection, r.Return, "wrong rejection: write with token %d was rejected at %s, but the first write with a token %s that can have taken effect, token %d, was only sent at %s",
		r.Token, at(r.Return), justifying(r.Token), first.Token, at(first.Call))
	w.add(r, "accept token %d: nothing that would justify rejecting it had taken effect", r.Token)
	w.add(first, "the first write with a token %s", justifying(r.Token))
	if x := pb.op(s.next.op); x != nil && s.next.at > first.Call {
		w.add(x, "bounds when the next write can take effect")
	}
	return w.done()
}

// unjustifiedFinding explains a rejection that no write could justify.
func (pb *fastProblem) unjustifiedFinding(s fastState) *finding {
	r := pb.op(s.due.op)
	var first *histories.Operation
	for i := range pb.writes {
		if op := pb.op(pb.writes[i].op); pb.policy.MayReject(op.Token, r.Token) && (first == nil || op.Call < first.Call) {
			first = op
		}
	}
	if first == nil {
		return newWitness(RuleWrongRejection, r.Return, "wrong rejection: write with token %d was rejected, but no write with a token %s took effect at all", r.Token, justifying(r.Token)).
			add(r, "accept token %d: it is not stale", r.Token).done()
	}
	return newWitness(RuleWrongRejection, r.Return, "wrong rejection: write with token %d was rejected at %s, but no write with a token %s can have taken effect by then; the earliest sent, token %d, was sent at %s",
		r.Token, at(r.Return), justifying(r.Token), first.Token, at(first.Call)).
		add(r, "accept token %d: it is not stale", r.Token).
		add(first, "the earliest write that could justify rejecting token %d", r.Token).done()
}
