package explain

import (
	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// witness words what the fast checker blamed (check.Blame): mostly two
// times that contradict an order the model forces (a write with a lower
// token, or a read of it, begins only after a write with a higher token
// had taken effect), or a rejection that nothing could justify in time.
// It fills a finding's roles (finding.go) with the operations the checker
// named; what the finding claims and says follows from them. Questions
// about the whole history (which writes wrote a value, which write sent
// before a rejection answered had the highest token) go to the resource's
// universe. As in the rules, a finding's at is the return of the operation
// whose answer the resource must not have given. It returns nil for a
// blame that names no operation (porcupine's).
func witness(u *universe, b check.Blame) *finding {
	switch b.Reason {
	case check.ReasonRead:
		return u.readWitness(u.byOpID(b.Op))
	case check.ReasonTokenZero:
		if op := u.byOpID(b.Op); op.Status == histories.StatusAccepted {
			return &finding{kind: kindZeroAccepted, rule: RuleStaleAccepted, at: op.Return, culprit: op, policy: u.policy}
		}
		return u.readWitness(u.byOpID(b.Seen)) // an unknown write of token 0, read
	case check.ReasonTokenTwice:
		return u.tokenTwice(b)
	case check.ReasonConflict:
		return u.conflict(b)
	case check.ReasonOrder:
		return u.order(b.Op, b.Other, b.Seen)
	case check.ReasonLateRejection:
		return u.lateRejection(b)
	case check.ReasonUnjustified:
		return u.rejectionOrder(u.byOpID(b.Op))
	}
	return nil
}

// readWitness explains a read whose value or token no write explains.
func (u *universe) readWitness(rd *histories.Operation) *finding {
	if f := readOriginFinding(u, rd); f != nil {
		return f
	}
	return u.noOrder(rd, rd.Return)
}

// noOrder is the finding of last resort: the checker found no order, and
// op is where it got stuck.
func (u *universe) noOrder(op *histories.Operation, at int64, context ...*histories.Operation) *finding {
	return &finding{kind: kindNoOrder, rule: RuleNoOrder, at: at, culprit: op, policy: u.policy, context: context}
}

// tokenTwice: two writes of one token took effect under strict. The
// repeat is the one whose evidence completes last: its return, or the
// return of the read that shows it took effect.
func (u *universe) tokenTwice(b check.Blame) *finding {
	f := &finding{kind: kindEqualAccepted, rule: RuleEqualAccepted, policy: u.policy, seen: make(map[*histories.Operation]*histories.Operation)}
	evidence := func(w *histories.Operation, seen int) *histories.Operation {
		if w.Status == histories.StatusAccepted {
			return w
		}
		r := u.byOpID(seen)
		f.seen[w] = r
		return r
	}
	f.first, f.second = u.byOpID(b.Op), u.byOpID(b.Other)
	ea, eb := evidence(f.first, b.Seen), evidence(f.second, b.OtherSeen)
	if eb.Return < ea.Return {
		f.first, f.second, eb = f.second, f.first, ea
	}
	f.culprit, f.at = eb, eb.Return
	var reads []*histories.Operation
	for _, r := range f.seen {
		reads = append(reads, r)
	}
	f.origins = u.originsOf(reads...)
	f.advice = u.holdsUnder(model.AcceptEqual)
	return f
}

// hiWitness returns the operation whose return bounds when w took effect
// (hi, by ID): w itself when accepted, a read of it, or, for an unknown
// write whose interval the fencing cap shortened, the accepted write that
// bars it and returned first.
func (u *universe) hiWitness(w *histories.Operation, hi int) *histories.Operation {
	op := u.byOpID(hi)
	if op != w || w.Status == histories.StatusAccepted {
		return op
	}
	if a := u.earliestBarring(w); a != nil {
		return a
	}
	return op
}

// conflict explains two writes of one token (accept-equal) neither of
// which can take effect first: after a write, the next one takes effect
// only once the write and its reads have begun, yet each must have taken
// effect before the other's write or reads began.
func (u *universe) conflict(b check.Blame) *finding {
	x, y := u.byOpID(b.Op), u.byOpID(b.Other)
	f := &finding{kind: kindConflict, rule: RuleNoOrder, policy: u.policy, first: x, second: y,
		seen: make(map[*histories.Operation]*histories.Operation)}
	for _, w := range []struct {
		op   *histories.Operation
		seen int
	}{{x, b.Seen}, {y, b.OtherSeen}} {
		if w.op.Status != histories.StatusAccepted {
			f.seen[w.op] = u.byOpID(w.seen)
		}
	}
	f.bounds = []orderBound{
		{of: y, hi: u.hiWitness(y, b.Order[0].Hi), push: u.byOpID(b.Order[0].Push)},
		{of: x, hi: u.hiWitness(x, b.Order[1].Hi), push: u.byOpID(b.Order[1].Push)},
	}
	var reads []*histories.Operation
	for _, op := range []*histories.Operation{f.bounds[0].hi, f.bounds[0].push, f.bounds[1].hi, f.bounds[1].push, f.seen[x], f.seen[y]} {
		if op != nil && !op.IsWrite() {
			reads = append(reads, op)
		}
	}
	f.origins = u.originsOf(reads...)
	f.at = noBound
	for _, op := range f.named() {
		if op.Return != histories.Infinity && op.Return > f.at {
			f.culprit, f.at = op, op.Return
		}
	}
	return f
}

// noBound is earlier than every time.
const noBound int64 = -1 << 63

// sighted returns the write that the operation hi (by ID) shows in
// effect, and the operation that shows it: the write itself, accepted; a
// read of its value; or, for a capped unknown write, the accepted write
// that bars it.
func (u *universe) sighted(hi int) (newer, shown *histories.Operation) {
	y := u.byOpID(hi)
	if y.IsWrite() {
		shown = u.hiWitness(y, hi)
		return shown, shown
	}
	if w := u.source(y); w != nil {
		return w, y
	}
	return nil, y
}

// order explains lo's operation (a write with a lower token, or a read of
// it) beginning after hi's (a write with a higher token, or a read of it)
// had taken effect, although the lower token must take effect first; seen
// is, when lo is a write of unknown outcome, the read that shows it took
// effect.
func (u *universe) order(lo, hi, seen int) *finding {
	x := u.byOpID(lo)
	newer, shown := u.sighted(hi)
	if newer == nil {
		return u.noOrder(x, x.Return, shown)
	}
	f := &finding{rule: RuleStaleRead, at: x.Return, culprit: x, policy: u.policy, newer: newer, shown: shown, origins: u.originsOf(shown)}
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
			return u.readWitness(x)
		}
		f.kind, f.older, f.origins = kindStaleRead, older, u.originsOf(x, shown)
		return f
	}
	// An unknown write that a read shows took effect, although it was
	// sent after a write that bars it had taken effect.
	obs := u.byOpID(seen)
	if obs == nil {
		return u.noOrder(x, shown.Return, newer, shown)
	}
	if g := readOriginFinding(u, obs); g != nil {
		return g
	}
	f.kind, f.rule, f.culprit, f.at, f.older = kindOrderNoOrder, RuleNoOrder, obs, obs.Return, x
	f.origins = u.originsOf(obs, shown)
	return f
}

// wrongRejectionOf is the wrong-rejection rule for a rejection r: no
// write sent before it answered justifies it. Nil when one does.
func (u *universe) wrongRejectionOf(r *histories.Operation) *finding {
	highest := u.highestSentBy(r.Return)
	var h uint64
	if highest != nil {
		h = highest.Token
	}
	if u.policy.MayReject(h, r.Token) {
		return nil
	}
	return &finding{kind: kindWrongRejection, rule: RuleWrongRejection, at: r.Return, culprit: r, policy: u.policy, highest: highest}
}

// rejectionOrder explains a rejection that writes sent in time could
// justify, but not in any order the other answers allow.
func (u *universe) rejectionOrder(r *histories.Operation) *finding {
	if f := u.wrongRejectionOf(r); f != nil {
		return f
	}
	return &finding{kind: kindRejectionOrder, rule: RuleWrongRejection, at: r.Return, culprit: r, policy: u.policy,
		highest: u.earliestJustifier(r)}
}

// lateRejection explains a rejection (b.Op) that returned before the
// next write (b.Other) could take effect: something that comes before
// every write that would justify it began only after it answered.
func (u *universe) lateRejection(b check.Blame) *finding {
	r, x := u.byOpID(b.Op), u.byOpID(b.Other)
	if f := u.wrongRejectionOf(r); f != nil {
		return f
	}
	if newer := u.newerBefore(x); newer != nil {
		// The late operation contradicts an accepted write on its own: a
		// stale read or write explains more plainly than the rejection.
		return u.order(b.Other, newer.ID, b.OtherSeen)
	}
	f := &finding{kind: kindLateRejection, rule: RuleWrongRejection, at: r.Return, culprit: r, policy: u.policy, later: x}
	switch {
	case x == nil:
		return u.rejectionOrder(r)
	case x.IsWrite():
		switch obs := u.byOpID(b.OtherSeen); {
		case x.Status == histories.StatusAccepted:
		case obs != nil:
			f.seen = map[*histories.Operation]*histories.Operation{x: obs}
			f.origins = u.originsOf(obs)
		default:
			return u.rejectionOrder(r) // a write that need not have taken effect
		}
	case x.HasValue:
		f.older = u.source(x)
		if f.older == nil {
			return u.rejectionOrder(r)
		}
		f.origins = u.originsOf(x)
	}
	return f
}

// newerBefore looks for the plainest evidence against x (a write, or a
// read of one): an accepted write with a higher token (any token, for a
// read of nothing) that had returned before x began, which therefore took
// effect before it although it must come after. It returns the one that
// returned first, or nil.
func (u *universe) newerBefore(x *histories.Operation) *histories.Operation {
	if x == nil {
		return nil
	}
	older, anyToken := x, false
	if !x.IsWrite() {
		older = u.source(x)
		anyToken = !x.HasValue
		if older == nil && !anyToken {
			return nil
		}
	}
	u.acceptedOnce.Do(u.indexAccepted)
	var best *histories.Operation
	for _, k := range u.accepted {
		w := u.at(k)
		if w.Return >= x.Call || (!anyToken && w.Token <= older.Token) {
			continue
		}
		if best == nil || w.Return < best.Return {
			best = w
		}
	}
	return best
}
