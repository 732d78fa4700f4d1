package explain

import (
	"cmp"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/parallel"
	"github.com/fencecheck/fencecheck/model"
)

// explainResource is the one engine that words a violation: u is the
// resource's history and b what the checker blamed. Two sources of
// evidence give an account: the checker's blame (witness), and the rules
// below, which need no search. The evidence that is complete earliest
// wins: the fast checker meets the violation first in token order, which
// can be a later symptom (the stale read after the article's stale write
// was accepted), so where a rule has evidence complete strictly earlier,
// its account is the one given, and both checkers tell the article's
// story the same way. When neither gives one (porcupine blames no
// operation, and the violation needs several operations' orders
// together), the explanation falls back to porcupine's longest legal
// prefix.
func explainResource(u *universe, b check.Blame, opts check.Options) *finding {
	w := witness(u, b)
	// Evidence complete before the witness's only involves operations
	// invoked before it, so the rules see that prefix alone: it gives
	// them the same answers, and keeps them off the rest of the history.
	// A prefix over the limit is left to the witness, which is exact too:
	// the rules would only cost time. The rules need no fencing cap:
	// what it shows (a write that can only be a no-op) they ask the
	// universe, with the other questions about the whole history.
	view := make([]*histories.Operation, 0, len(u.ops))
	for _, k := range u.ops {
		if op := u.at(k); model.Checkable(op) && (w == nil || op.Call <= w.at) {
			view = append(view, op)
		}
	}
	if w != nil && len(view) > ruleExplanationLimit {
		return w
	}
	if g := explainByRules(view, u, nil, opts); g != nil && (w == nil || g.at < w.at) {
		return g
	}
	if w != nil {
		return w
	}
	return fallback(u.prepared(opts), u, opts)
}

// ruleExplanationLimit bounds the prefix on which explainResource applies
// the rules beside a witness, so that explaining never dominates checking.
const ruleExplanationLimit = 200_000

// explain is explainResource for a sub-history g of the resource, with no
// blame (a candidate of the shrinker): member reports whether an operation
// is one of g's (nil: all are). A finding is valid only if every operation
// it names is one of g's.
func explain(g model.Group, u *universe, member func(id int) bool, opts check.Options) *finding {
	ops := make([]*histories.Operation, len(g.Ops))
	for i := range g.Ops {
		ops[i] = &g.Ops[i]
	}
	if best := explainByRules(ops, u, member, opts); best != nil {
		return best
	}
	return fallback(g.Ops, u, opts)
}

// The rules: each is a sufficient condition for a violation that needs no
// search: a stale token accepted after a barring one had been seen in
// effect, a rejection that no write sent before it answered could
// justify, a read of a value no write can have produced by then, a read
// that missed a write seen in effect before it began. Every rule runs in
// O(n log n), because violating resources can hold millions of
// operations. Their findings are about u, the resource's original history,
// whatever sub-history they look at (the prefix explainResource gives
// them, a candidate of the shrinker): it answers every universal question
// ("which writes wrote this value", "which write sent before this
// rejection answered had the highest token").

// explainByRules applies the rules that need no search and returns the
// evidence that is complete earliest, or nil when none applies (on a tie,
// the rule of lower rank below). The rules are independent and run
// in parallel, on what newExplainer prepared once for all of them: a
// violating resource is usually the only one left to work on, and its
// history can be long. ops are one resource's operations, filtered and
// capped as for a checker (see Group), in history order; they are read,
// never modified.
func explainByRules(ops []*histories.Operation, u *universe, member func(id int) bool, opts check.Options) *finding {
	e := newExplainer(ops, u, member, opts)
	// The rules are listed costliest first, so that two cores finish
	// together; rank orders them on a tie.
	rules := []struct {
		rank int
		find func() *finding
	}{
		{4, e.staleRead},
		{2, e.wrongRejection},
		{3, e.readOrigin},
		{1, e.equalAccepted},
		{0, e.staleAccepted},
	}
	found := make([]*finding, len(rules))
	parallel.Run(len(rules), func(_, i int) { found[i] = rules[i].find() })
	var best *finding
	bestRank := 0
	for i, f := range found {
		if f != nil && (best == nil || f.at < best.at || f.at == best.at && rules[i].rank < bestRank) {
			best, bestRank = f, rules[i].rank
		}
	}
	if best != nil && best.kind == kindEqualAccepted {
		best.advice = u.holdsUnder(model.AcceptEqual)
	}
	return best
}

type explainer struct {
	u      *universe
	member func(id int) bool
	policy model.Policy
	fenced bool
	// What newExplainer prepares for the rules, which only read it: the
	// accepted writes, the rejected writes and the reads that returned,
	// each in history order, as originals (not the cap's copies), and
	// the sightings.
	accepted, rejected, reads []*histories.Operation
	sightings                 []sighting
	// origins[i] is the origin of reads[i], computed once for all rules.
	origins []readOrigin
}

// readOrigin is what the universe says of the value a read returned: how
// many writes wrote it, how many of them can have produced it by then,
// and that one when it is the only one.
type readOrigin struct {
	writes, applicable int32
	only               *histories.Operation
}

// newExplainer prepares what the rules share, in one pass over ops after
// counting its writes.
func newExplainer(ops []*histories.Operation, u *universe, member func(id int) bool, opts check.Options) *explainer {
	e := &explainer{u: u, member: member, policy: opts.Policy, fenced: opts.Kind == model.KindFenced}
	writes := 0
	for _, op := range ops {
		if op.IsWrite() {
			writes++
		}
	}
	e.reads = make([]*histories.Operation, 0, len(ops)-writes)
	e.accepted = make([]*histories.Operation, 0, writes)
	e.rejected = make([]*histories.Operation, 0, writes)
	for _, op := range ops {
		op = u.op(op)
		switch {
		case !op.IsWrite():
			if op.Status == histories.StatusOK {
				e.reads = append(e.reads, op)
			}
		case op.Status == histories.StatusAccepted:
			e.accepted = append(e.accepted, op)
		case op.Status == histories.StatusRejected:
			e.rejected = append(e.rejected, op)
		}
	}
	e.origins = make([]readOrigin, len(e.reads))
	for i, r := range e.reads {
		if r.HasValue {
			e.origins[i] = e.u.origin(r)
		}
	}
	e.sightings = e.see()
	return e
}

// source returns the only write that can have produced the value
// reads[i] returned, or nil.
func (e *explainer) source(i int) *histories.Operation {
	if o := e.origins[i]; o.applicable == 1 {
		return o.only
	}
	return nil
}

// sighting is evidence that newer had taken effect by at: newer itself,
// accepted and returned, or a read of its value that returned (shown).
type sighting struct {
	at           int64
	newer, shown *histories.Operation
}

// see collects the sightings the sub-history holds, by time.
func (e *explainer) see() []sighting {
	out := make([]sighting, 0, len(e.accepted))
	for _, a := range e.accepted {
		out = append(out, sighting{a.Return, a, a})
	}
	for i, r := range e.reads {
		// A read shows its write in effect earlier than the write's own
		// return only if it returned first, or the write's outcome is
		// unknown.
		if w := e.source(i); w != nil && (w.Status != histories.StatusAccepted || r.Return < w.Return) && e.has(w) && e.allOf(r.Value) {
			out = append(out, sighting{r.Return, w, r})
		}
	}
	slices.SortFunc(out, func(a, b sighting) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.shown.ID, b.shown.ID)) })
	return out
}

func (e *explainer) has(op *histories.Operation) bool { return e.member == nil || e.member(op.ID) }

// allOf reports whether every write of value is in the sub-history.
func (e *explainer) allOf(value string) bool {
	all := true
	e.u.eachWrite(value, func(w *histories.Operation) bool {
		all = e.has(w)
		return all
	})
	return all
}

// consider keeps f in best when it is valid and its evidence complete
// earlier.
func (e *explainer) consider(best **finding, f *finding) {
	if f != nil && (*best == nil || f.at < (*best).at) && f.within(e.member) {
		*best = f
	}
}

// highestSightingBefore sweeps targets (sorted by invocation) and calls fn
// with the position of each and the sighting with the highest token seen
// in effect before it was invoked, if any.
func (e *explainer) highestSightingBefore(targets []*histories.Operation, fn func(k int, s sighting)) {
	var highest *sighting
	j := 0
	for k, t := range targets {
		for j < len(e.sightings) && e.sightings[j].at < t.Call {
			if s := &e.sightings[j]; highest == nil || s.newer.Token > highest.newer.Token {
				highest = s
			}
			j++
		}
		if highest != nil {
			fn(k, *highest)
		}
	}
}

func byCall(ops []*histories.Operation) []*histories.Operation {
	out := slices.Clone(ops)
	slices.SortStableFunc(out, func(a, b *histories.Operation) int { return cmp.Compare(a.Call, b.Call) })
	return out
}

func mayHaveApplied(op *histories.Operation) bool {
	return op.IsWrite() && (op.Status == histories.StatusAccepted || op.Status == histories.StatusUnknown)
}

// staleAccepted: a write was accepted although a write whose token bars
// it (after which it may no longer be accepted) had been seen in effect
// before it was even sent: accepted and returned, or read. This is the
// article's step 4 on a receiver without fencing. Under strict, a write of
// token 0 can never be accepted.
func (e *explainer) staleAccepted() *finding {
	if !e.fenced {
		return nil
	}
	var best *finding
	if e.policy == model.Strict {
		for _, w := range e.accepted {
			if !e.policy.MayAccept(0, w.Token) {
				e.consider(&best, &finding{kind: kindZeroAccepted, rule: RuleStaleAccepted, at: w.Return, culprit: w, policy: e.policy})
			}
		}
	}
	accepted := byCall(e.accepted)
	e.highestSightingBefore(accepted, func(k int, s sighting) {
		w := accepted[k]
		if e.policy.MayAccept(s.newer.Token, w.Token) || s.newer.Token == w.Token {
			return // equal tokens are equalAccepted's to explain
		}
		e.consider(&best, &finding{kind: kindStaleAccepted, rule: RuleStaleAccepted, at: w.Return, culprit: w, policy: e.policy,
			newer: s.newer, shown: s.shown, origins: e.u.originsOf(s.shown)})
	})
	return best
}

// equalAccepted: under strict, two writes with the same token can never
// both be accepted, whatever their timing.
func (e *explainer) equalAccepted() *finding {
	if !e.fenced || e.policy != model.Strict {
		return nil
	}
	first := make(map[uint64]*histories.Operation, len(e.accepted))
	var best *finding
	for _, w := range e.accepted {
		prev, ok := first[w.Token]
		if !ok {
			first[w.Token] = w
			continue
		}
		a, b := prev, w
		if b.Return < a.Return {
			a, b = b, a // the repeat is the one answered last
		}
		e.consider(&best, &finding{kind: kindEqualAccepted, rule: RuleEqualAccepted, at: b.Return, culprit: b, policy: e.policy, first: a, second: b})
	}
	return best
}

// wrongRejection: a write was rejected although no write of the original
// history that may have taken effect and was sent before the rejection
// answered carried a token that justifies it (Policy.MayReject: its token
// or above, under either policy; a rejection of token 0 is always
// justified). The writes are the universe's, not the sub-history's: a
// sub-history without the write that justified the rejection would
// otherwise "show" a wrong rejection the resource never made. A receiver
// that refuses its current owner is broken, not safe.
func (e *explainer) wrongRejection() *finding {
	if !e.fenced {
		return nil
	}
	rejected := slices.Clone(e.rejected)
	slices.SortStableFunc(rejected, func(a, b *histories.Operation) int { return cmp.Compare(a.Return, b.Return) })
	for _, r := range rejected {
		highest := e.u.highestSentBy(r.Return)
		var h uint64 // the highest token that can have taken effect; 0 initially
		if highest != nil {
			h = highest.Token
		}
		if e.policy.MayReject(h, r.Token) {
			continue
		}
		f := &finding{kind: kindWrongRejection, rule: RuleWrongRejection, at: r.Return, culprit: r, policy: e.policy, highest: highest}
		if f.within(e.member) {
			return f // rejected is sorted by return, so this is the earliest
		}
	}
	return nil
}

// readOrigin: a read returned a value that no write can have produced by
// then, or with a token other than the write's.
func (e *explainer) readOrigin() *finding {
	var best *finding
	for i, r := range e.reads {
		if best == nil || r.Return < best.at {
			e.consider(&best, e.u.readFinding(r, e.origins[i]))
		}
	}
	return best
}

// readOriginFinding explains what is wrong with the origin of the value
// read r returned, in the original history; nil when nothing is. The
// writes of the value are all of the history's, whatever their outcome:
// a read of a value only a failed write wrote is a read of a write that
// failed, not of a value nobody wrote.
func readOriginFinding(u *universe, r *histories.Operation) *finding {
	var o readOrigin
	if r.HasValue {
		o = u.origin(r)
	}
	return u.readFinding(r, o)
}

// origin judges the writes of the value read r returned.
func (u *universe) origin(r *histories.Operation) readOrigin {
	var o readOrigin
	u.eachWrite(r.Value, func(w *histories.Operation) bool {
		o.writes++
		if why, _ := u.whyNot(w, r.Return); why == causeNone {
			o.applicable++
			o.only = w
		}
		return true
	})
	return o
}

// readFinding is readOriginFinding for a read whose origin is judged.
func (u *universe) readFinding(r *histories.Operation, o readOrigin) *finding {
	if !r.HasValue {
		if !u.fenced || !r.HasToken || r.Token == 0 {
			return nil
		}
		return &finding{kind: kindReadUnwritten, rule: RuleReadOrigin, at: r.Return, culprit: r, policy: u.policy}
	}
	var kind findingKind
	switch {
	case o.writes == 0:
		kind = kindReadNowhere
	case o.applicable == 0:
		kind = kindReadNotApplied
	case o.applicable == 1 && u.fenced && r.HasToken && r.Token != o.only.Token:
		kind = kindReadToken
	default:
		return nil
	}
	return &finding{kind: kind, rule: RuleReadOrigin, at: r.Return, culprit: r, policy: u.policy, older: o.only, origins: u.originsOf(r)}
}

// staleRead: a read returned an older value although a write that bars
// it had been seen in effect before the read began (or, in the plain
// register, a write sent after the older one returned had been accepted
// and had returned), or found the resource unwritten although some write
// had been seen in effect.
func (e *explainer) staleRead() *finding {
	var best *finding
	var latest *histories.Operation // the latest-invoked accepted write returned before the read
	accepted := slices.Clone(e.accepted)
	slices.SortStableFunc(accepted, func(a, b *histories.Operation) int { return cmp.Compare(a.Return, b.Return) })
	j := 0
	order := make([]int, len(e.reads)) // the reads by invocation, as positions in reads
	for i := range order {
		order[i] = i
	}
	byCallOf := func(a, b int) int { return cmp.Compare(e.reads[a].Call, e.reads[b].Call) }
	if !slices.IsSortedFunc(order, byCallOf) {
		slices.SortStableFunc(order, byCallOf)
	}
	reads := make([]*histories.Operation, len(order))
	for k, i := range order {
		reads[k] = e.reads[i]
	}
	e.highestSightingBefore(reads, func(k int, s sighting) {
		r := reads[k]
		for j < len(accepted) && accepted[j].Return < r.Call {
			if latest == nil || accepted[j].Call > latest.Call {
				latest = accepted[j]
			}
			j++
		}
		if best != nil && best.at <= r.Return {
			return
		}
		if !r.HasValue {
			e.consider(&best, &finding{kind: kindUnwrittenRead, rule: RuleStaleRead, at: r.Return, culprit: r, policy: e.policy,
				newer: s.newer, shown: s.shown, origins: e.u.originsOf(s.shown)})
			return
		}
		w := e.source(order[k])
		if w == nil {
			return // readOrigin's to explain
		}
		if e.fenced && s.newer != w && !e.policy.MayAccept(s.newer.Token, w.Token) {
			e.consider(&best, &finding{kind: kindStaleRead, rule: RuleStaleRead, at: r.Return, culprit: r, policy: e.policy,
				older: w, newer: s.newer, shown: s.shown, origins: e.u.originsOf(r, s.shown)})
		} else if latest != nil && latest.Call > w.Return {
			e.consider(&best, &finding{kind: kindStaleReadOrder, rule: RuleStaleRead, at: r.Return, culprit: r, policy: e.policy,
				older: w, newer: latest, origins: e.u.originsOf(r)})
		}
	})
	return best
}

// fallbackLimit bounds the size of a resource for which the fallback asks
// porcupine for its longest legal prefix.
const fallbackLimit = 5000

// fallback names the first operation that porcupine's longest legal prefix
// could not place, and the operations concurrent with it.
func fallback(ops []histories.Operation, u *universe, opts check.Options) *finding {
	f := &finding{kind: kindNoOrder, rule: RuleNoOrder, at: histories.Infinity, policy: opts.Policy}
	if len(ops) > fallbackLimit {
		return f
	}
	res, info := porcupine.CheckOperationsVerbose(model.Porcupine(opts.Kind, opts.Policy), model.ToPorcupine(ops), 10*time.Second)
	if res != porcupine.Illegal {
		return f
	}
	placed := make(map[int]bool)
	longest := 0
	for _, part := range info.PartialLinearizations() {
		for _, lin := range part {
			if len(lin) > longest {
				longest = len(lin)
				clear(placed)
				for _, id := range lin {
					placed[id] = true
				}
			}
		}
	}
	var stuck *histories.Operation
	for i := range ops {
		if !placed[i] && (stuck == nil || ops[i].Call < stuck.Call) {
			stuck = &ops[i]
		}
	}
	if stuck == nil {
		return f
	}
	f.culprit = u.op(stuck)
	f.at = f.culprit.Return
	for i := range ops {
		op := &ops[i]
		if op != stuck && op.Call <= stuck.Return && op.Return >= stuck.Call && len(f.context) < 7 {
			f.context = append(f.context, u.op(op))
		}
	}
	return f
}
