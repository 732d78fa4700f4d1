package models

import (
	"github.com/fencecheck/fencecheck/histories"
)

// The fast checker explains a violation with the constraint that failed:
// mostly two times that contradict an order the model forces (a write with
// a lower token, or a read of it, begins only after a write with a higher
// token had taken effect), or a rejection that nothing could justify in
// time. It fills a finding's roles (finding.go) with the operations the
// times come from; what the finding claims and says follows from them.
// Questions about the whole history (which writes wrote a value, which
// write sent before a rejection answered had the highest token) go to the
// resource's universe, built the first time a witness needs it: only a
// violating resource has one. As in Explain, a finding's at is the return
// of the operation whose answer the resource must not have given.

// silent is every finding of a check that wants only the verdict
// (checkFastVerdict): it is not explained.
var silent = finding{kind: kindNoOrder, rule: RuleNoOrder}

// universe returns the resource's original history.
func (pb *fastProblem) universe() *universe {
	if pb.u == nil {
		pb.u = newUniverse(pb.ops, pb.name, Options{Kind: KindFenced, Policy: pb.policy})
	}
	return pb.u
}

// fastWriteOf returns the record of the write at position k of the
// history. It scans: it is called only to explain.
func (pb *fastProblem) fastWriteOf(k int32) *fastWrite {
	for i := range pb.all {
		if pb.all[i].op == k {
			return &pb.all[i]
		}
	}
	return nil
}

// observer returns a read that shows w took effect, if any: the one that
// returned first.
func (pb *fastProblem) observer(w *fastWrite) *histories.Operation {
	if w.beforeOp >= 0 {
		return pb.op(w.beforeOp)
	}
	return pb.op(w.afterOp)
}

// readFinding explains a read whose value or token no write explains.
func (pb *fastProblem) readFinding(rd *histories.Operation) *finding {
	if pb.quiet {
		return &silent
	}
	if f := readOriginFinding(pb.universe(), rd); f != nil {
		return f
	}
	return pb.noOrder(rd, rd.Return)
}

// noOrder is the finding of last resort: the checker found no order, and
// op is where it got stuck.
func (pb *fastProblem) noOrder(op *histories.Operation, at int64, context ...*histories.Operation) *finding {
	return &finding{kind: kindNoOrder, rule: RuleNoOrder, at: at, culprit: op, policy: pb.policy, context: context}
}

func (pb *fastProblem) strictZeroFinding(w *fastWrite) *finding {
	if pb.quiet {
		return &silent
	}
	op := pb.op(w.op)
	if op.Status == histories.StatusAccepted {
		return &finding{kind: kindZeroAccepted, rule: RuleStaleAccepted, at: op.Return, culprit: op, policy: pb.policy}
	}
	return pb.readFinding(pb.observer(w)) // an unknown write of token 0, read
}

// strictTwiceFinding: two writes of one token took effect under strict.
// The repeat is the one whose evidence completes last: its return, or the
// return of the read that shows it took effect.
func (pb *fastProblem) strictTwiceFinding(a, b *fastWrite) *finding {
	if pb.quiet {
		return &silent
	}
	u := pb.universe()
	f := &finding{kind: kindEqualAccepted, rule: RuleEqualAccepted, policy: pb.policy, seen: make(map[*histories.Operation]*histories.Operation)}
	evidence := func(w *fastWrite) *histories.Operation {
		op := pb.op(w.op)
		if op.Status == histories.StatusAccepted {
			return op
		}
		r := pb.observer(w)
		f.seen[op] = r
		return r
	}
	ea, eb := evidence(a), evidence(b)
	f.first, f.second = pb.op(a.op), pb.op(b.op)
	if eb.Return < ea.Return {
		f.first, f.second, ea, eb = f.second, f.first, eb, ea
	}
	f.culprit, f.at = eb, eb.Return
	var reads []*histories.Operation
	for _, r := range f.seen {
		reads = append(reads, r)
	}
	f.origins = u.originsOf(reads...)
	f.advice = u.holdsUnder(AcceptEqual)
	return f
}

func (pb *fastProblem) futureReadFinding(_ *fastWrite, hi bound) *finding {
	if pb.quiet {
		return &silent
	}
	return pb.readFinding(pb.op(hi.op))
}

// hiWitness returns the operation whose return bounds when w took effect
// (hi): w itself when accepted, a read of it, or, for an unknown write
// whose interval the fencing cap shortened, the accepted write that bars
// it and returned first.
func (pb *fastProblem) hiWitness(w *histories.Operation, hi bound) *histories.Operation {
	op := pb.op(hi.op)
	if op != w || w.Status == histories.StatusAccepted {
		return op
	}
	if a := pb.universe().earliestBarring(w); a != nil {
		return a
	}
	return op
}

// conflictFinding explains two writes of one token (accept-equal) neither
// of which can take effect first: after a write, the next one takes effect
// only once the write and its reads have begun, yet each must have taken
// effect before the other's write or reads began.
func (pb *fastProblem) conflictFinding(a, b *fastWrite) *finding {
	if pb.quiet {
		return &silent
	}
	x, y := pb.op(a.op), pb.op(b.op)
	f := &finding{kind: kindConflict, rule: RuleNoOrder, policy: pb.policy, first: x, second: y,
		seen: make(map[*histories.Operation]*histories.Operation)}
	for _, w := range []*fastWrite{a, b} {
		if op := pb.op(w.op); op.Status != histories.StatusAccepted {
			f.seen[op] = pb.observer(w)
		}
	}
	// x cannot go first: push(a) > hi(b); y cannot: push(b) > hi(a).
	f.bounds = []orderBound{
		{of: y, hi: pb.hiWitness(y, b.hi()), push: pb.op(a.push().op)},
		{of: x, hi: pb.hiWitness(x, a.hi()), push: pb.op(b.push().op)},
	}
	var reads []*histories.Operation
	for _, op := range []*histories.Operation{f.bounds[0].hi, f.bounds[0].push, f.bounds[1].hi, f.bounds[1].push, f.seen[x], f.seen[y]} {
		if op != nil && !op.IsWrite() {
			reads = append(reads, op)
		}
	}
	f.origins = pb.universe().originsOf(reads...)
	f.at = noBound
	for _, op := range f.named() {
		if op.Return != histories.Infinity && op.Return > f.at {
			f.culprit, f.at = op, op.Return
		}
	}
	return f
}

// sighted returns the write that hi shows in effect, and the operation
// that shows it: the write itself, accepted; a read of its value; or, for
// a capped unknown write, the accepted write that bars it.
func (pb *fastProblem) sighted(hi bound) (newer, shown *histories.Operation) {
	y := pb.op(hi.op)
	if y.IsWrite() {
		shown = pb.hiWitness(y, hi)
		return shown, shown
	}
	if w := pb.universe().source(y); w != nil {
		return w, y
	}
	return nil, y
}

// orderFinding explains lo > hi where lo comes from a write with a lower
// token (its invocation, or a read of it) and hi from a write with a
// higher token (its return, or a read of it): the lower token must take
// effect first, yet it began after the higher one had taken effect.
func (pb *fastProblem) orderFinding(lo, hi bound) *finding {
	if pb.quiet {
		return &silent
	}
	u := pb.universe()
	x := pb.op(lo.op)
	newer, shown := pb.sighted(hi)
	if newer == nil {
		return pb.noOrder(x, x.Return, shown)
	}
	f := &finding{rule: RuleStaleRead, at: x.Return, culprit: x, policy: pb.policy, newer: newer, shown: shown, origins: u.originsOf(shown)}
	switch {
	case x.IsWrite() && x.Status == histories.StatusAccepted:
		f.kind, f.rule = kindStaleAccepted, RuleStaleAccepted
		return f
	case !x.IsWrite() && !x.HasValue:
		f.kind = kindUnwrittenRead
		return f
	case !x.IsWrite():
		older := u.source(x)
		if older == nil {
			return pb.readFinding(x)
		}
		f.kind, f.older, f.origins = kindStaleRead, older, u.originsOf(x, shown)
		return f
	}
	// An unknown write that a read shows took effect, although it was
	// sent after a write that bars it had taken effect.
	w := pb.fastWriteOf(lo.op)
	if w == nil || !w.forced {
		return pb.noOrder(x, shown.Return, newer, shown)
	}
	obs := pb.observer(w)
	if g := readOriginFinding(u, obs); g != nil {
		return g
	}
	f.kind, f.rule, f.culprit, f.at, f.older = kindOrderNoOrder, RuleNoOrder, obs, obs.Return, x
	f.origins = u.originsOf(obs, shown)
	return f
}

// wrongRejection is Explain's rule for a rejection r: no write sent
// before it answered justifies it. Nil when one does.
func (pb *fastProblem) wrongRejection(r *histories.Operation) *finding {
	highest := pb.universe().highestSentBy(r.Return)
	var h uint64
	if highest != nil {
		h = highest.Token
	}
	if pb.policy.MayReject(h, r.Token) {
		return nil
	}
	return &finding{kind: kindWrongRejection, rule: RuleWrongRejection, at: r.Return, culprit: r, policy: pb.policy, highest: highest}
}

// rejectionOrder explains a rejection that writes sent in time could
// justify, but not in any order the other answers allow.
func (pb *fastProblem) rejectionOrder(r *histories.Operation) *finding {
	if f := pb.wrongRejection(r); f != nil {
		return f
	}
	return &finding{kind: kindRejectionOrder, rule: RuleWrongRejection, at: r.Return, culprit: r, policy: pb.policy,
		highest: pb.universe().earliestJustifier(r)}
}

// lateJustifyFinding explains a rejection that returned before every
// state's next write could take effect: something that comes before every
// write that would justify it began only after it answered.
func (pb *fastProblem) lateJustifyFinding(rj *fastReject, lost fastState) *finding {
	if pb.quiet {
		return &silent
	}
	r, x := pb.op(rj.op), pb.op(lost.next.op)
	if f := pb.wrongRejection(r); f != nil {
		return f
	}
	if newer := pb.newerBefore(lost.next); newer.op >= 0 {
		// The late operation contradicts an accepted write on its own: a
		// stale read or write explains more plainly than the rejection.
		return pb.orderFinding(lost.next, newer)
	}
	f := &finding{kind: kindLateRejection, rule: RuleWrongRejection, at: r.Return, culprit: r, policy: pb.policy, later: x}
	switch {
	case x == nil:
		return pb.rejectionOrder(r)
	case x.IsWrite():
		w := pb.fastWriteOf(lost.next.op)
		switch {
		case x.Status == histories.StatusAccepted:
		case w != nil && w.forced:
			obs := pb.observer(w)
			f.seen = map[*histories.Operation]*histories.Operation{x: obs}
			f.origins = pb.universe().originsOf(obs)
		default:
			return pb.rejectionOrder(r) // a write that need not have taken effect
		}
	case x.HasValue:
		f.older = pb.universe().source(x)
		if f.older == nil {
			return pb.rejectionOrder(r)
		}
		f.origins = pb.universe().originsOf(x)
	}
	return f
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
		older = pb.universe().source(x)
		anyToken = !x.HasValue
		if older == nil && !anyToken {
			return bound{histories.Infinity, -1}
		}
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
func (pb *fastProblem) lateFirstFinding(s fastState, _ []fastWrite, _ fastGroup) *finding {
	if pb.quiet {
		return &silent
	}
	return pb.rejectionOrder(pb.op(s.due.op))
}

// unjustifiedFinding explains a rejection that no write could justify.
func (pb *fastProblem) unjustifiedFinding(s fastState) *finding {
	if pb.quiet {
		return &silent
	}
	return pb.rejectionOrder(pb.op(s.due.op))
}
