package models

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/histories"
)

// Explain finds the operations that make a resource's history illegal and
// says, in the seed's terms, what the resource should have done. It is
// called only after a checker found the group illegal.
//
// Each rule below is a sufficient condition for a violation that needs no
// search: a stale token accepted after a barring one had returned, a
// rejection no earlier write could justify, a read of a value nobody
// wrote, a read that missed a write which had completed before it began.
// Every rule runs in O(n log n), because violating resources can hold
// millions of operations. The evidence that is complete earliest wins.
// When no rule applies (the violation needs several operations' orders
// together), the explanation falls back to porcupine's longest legal
// prefix.
func Explain(g Group, opts Options) Violation {
	ops := make([]*histories.Operation, len(g.Ops))
	for i := range g.Ops {
		ops[i] = &g.Ops[i]
	}
	best := explainByRules(ops, opts)
	if best == nil {
		best = fallback(g.Ops, opts)
		best.rule = RuleNoOrder
	}
	return best.violation(g.Resource)
}

// explainByRules applies the rules that need no search and returns the
// evidence that is complete earliest, or nil when none applies (on a tie,
// the rule of lower rank below). The rules are independent and run
// in parallel, on what newExplainer prepared once for all of them: a
// violating resource is usually the only one left to work on, and its
// history can be long. ops are one resource's operations, filtered and
// capped as for a checker (see Group), in history order; they are read,
// never modified.
func explainByRules(ops []*histories.Operation, opts Options) *finding {
	e := newExplainer(ops, opts)
	// The rules are listed costliest first, so that two cores finish
	// together; rank orders them on a tie.
	rules := []struct {
		name string
		rank int
		find func() *finding
	}{
		{RuleStaleRead, 4, e.staleRead},
		{RuleWrongRejection, 2, e.wrongRejection},
		{RuleReadOrigin, 3, e.readOrigin},
		{RuleEqualAccepted, 1, e.equalAccepted},
		{RuleStaleAccepted, 0, e.staleAccepted},
	}
	found := make([]*finding, len(rules))
	parallel(len(rules), func(_, i int) { found[i] = rules[i].find() })
	var best *finding
	bestRank := 0
	for i, f := range found {
		if f != nil && (best == nil || f.at < best.at || f.at == best.at && rules[i].rank < bestRank) {
			best, bestRank = f, rules[i].rank
			best.rule = rules[i].name
		}
	}
	return best
}

type explainer struct {
	ops    []*histories.Operation
	policy Policy
	fenced bool
	// What newExplainer prepares for the rules, which only read it: the
	// accepted writes, the writes that may have taken effect, the
	// rejected writes and the reads that returned, each in history
	// order, and the writes by value.
	accepted, writers, rejected, reads []*histories.Operation
	byValue                            valueIndex
}

// valueIndex finds the writes of a value: latest maps a value to its
// latest write (a position in ops) and earlier chains each write to the
// previous write of the same value, or -1. One map of positions, not a
// slice of writes per value, because explaining runs on violating
// histories of any size and two rules need it.
type valueIndex struct {
	latest  map[string]int32
	earlier []int32
}

// newExplainer prepares what the rules share, in one pass over ops after
// counting its writes.
func newExplainer(ops []*histories.Operation, opts Options) *explainer {
	e := &explainer{ops: ops, policy: opts.Policy, fenced: opts.Kind == KindFenced}
	// Counting the writes sizes everything once: growing the index would
	// rehash it, and growing the classes copy them.
	writes := 0
	for _, op := range ops {
		if op.IsWrite() {
			writes++
		}
	}
	e.byValue = valueIndex{latest: make(map[string]int32, writes), earlier: make([]int32, len(ops))}
	e.reads = make([]*histories.Operation, 0, len(ops)-writes)
	e.accepted = make([]*histories.Operation, 0, writes)
	e.rejected = make([]*histories.Operation, 0, writes)
	e.writers = make([]*histories.Operation, 0, writes)
	for i, op := range ops {
		e.byValue.earlier[i] = -1
		if !op.IsWrite() {
			if op.Status == histories.StatusOK {
				e.reads = append(e.reads, op)
			}
			continue
		}
		switch op.Status {
		case histories.StatusAccepted:
			e.accepted = append(e.accepted, op)
		case histories.StatusRejected:
			e.rejected = append(e.rejected, op)
		}
		if mayHaveApplied(op) {
			e.writers = append(e.writers, op)
		}
		if prev, ok := e.byValue.latest[op.Value]; ok {
			e.byValue.earlier[i] = prev
		}
		e.byValue.latest[op.Value] = int32(i)
	}
	return e
}

// writesOf calls fn with each write of value, latest first, until fn
// returns false.
func (e *explainer) writesOf(value string, fn func(w *histories.Operation) bool) {
	k, ok := e.byValue.latest[value]
	for ; ok && k >= 0; k = e.byValue.earlier[k] {
		if !fn(e.ops[k]) {
			return
		}
	}
}

type row struct {
	op       *histories.Operation
	expected string
}

type finding struct {
	rule    string
	at      int64 // when the evidence was complete
	summary string
	rows    []row
}

func (f *finding) violation(resource string) Violation {
	v := Violation{Resource: resource, Rule: f.rule, Summary: f.summary}
	slices.SortStableFunc(f.rows, func(a, b row) int { return cmp.Compare(a.op.Call, b.op.Call) })
	// Every rule completes its evidence with the culprit's return
	// (f.at); the fallback has no such time and puts its stuck
	// operation first.
	culprit := -1
	for i, r := range f.rows {
		if r.op.Return == f.at {
			culprit = i
		}
	}
	if culprit < 0 && len(f.rows) > 0 {
		culprit = 0
	}
	for i, r := range f.rows {
		v.Steps = append(v.Steps, Step{
			OpID:     r.op.ID,
			Process:  r.op.Process,
			Call:     r.op.Call,
			Return:   r.op.Return,
			Event:    DescribeHistoryOp(r.op),
			Expected: r.expected,
			Culprit:  i == culprit,
		})
	}
	return v
}

// DescribeHistoryOp renders an operation of a history for people.
func DescribeHistoryOp(op *histories.Operation) string {
	if op.IsWrite() {
		return fmt.Sprintf("write token %d value %q → %s", op.Token, op.Value, op.Status)
	}
	if op.Status == histories.StatusUnknown {
		return "read → unknown"
	}
	return "read → " + describeRead(Output{Value: op.Value, HasValue: op.HasValue, Token: op.Token, HasToken: op.HasToken})
}

func mayHaveApplied(op *histories.Operation) bool {
	return op.IsWrite() && (op.Status == histories.StatusAccepted || op.Status == histories.StatusUnknown)
}

// staleAccepted: a write was accepted although a write whose token bars
// it (after which it may no longer be accepted) had been accepted and had
// returned before it was even sent. This is the seed's step 4 on a
// receiver without fencing.
func (e *explainer) staleAccepted() *finding {
	if !e.fenced {
		return nil
	}
	byReturn := slices.Clone(e.accepted)
	slices.SortFunc(byReturn, func(a, b *histories.Operation) int { return cmp.Compare(a.Return, b.Return) })
	byCall := slices.Clone(e.accepted)
	slices.SortFunc(byCall, func(a, b *histories.Operation) int { return cmp.Compare(a.Call, b.Call) })
	var best *finding
	var highest *histories.Operation // highest token among those returned so far
	j := 0
	for _, w := range byCall {
		for j < len(byReturn) && byReturn[j].Return < w.Call {
			if highest == nil || byReturn[j].Token > highest.Token {
				highest = byReturn[j]
			}
			j++
		}
		if highest == nil || e.policy.MayAccept(highest.Token, w.Token) || highest.Token == w.Token {
			continue // equal tokens are equalAccepted's to explain
		}
		if best == nil || w.Return < best.at {
			best = &finding{
				at: w.Return,
				summary: fmt.Sprintf("stale write accepted: token %d was accepted after token %d had already been accepted; the resource must reject it (%s policy)",
					w.Token, highest.Token, e.policy),
				rows: []row{
					{highest, fmt.Sprintf("accept token %d and remember it as the highest", highest.Token)},
					{w, fmt.Sprintf("reject token %d: token %d was already accepted", w.Token, highest.Token)},
				},
			}
		}
	}
	return best
}

// equalAccepted: under strict, two writes with the same token can never
// both be accepted, whatever their timing.
func (e *explainer) equalAccepted() *finding {
	if !e.fenced || e.policy != Strict {
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
		at := max(prev.Return, w.Return)
		if best == nil || at < best.at {
			best = &finding{
				at:      at,
				summary: fmt.Sprintf("token %d was accepted twice; under the strict policy a repeat of the current token must be rejected", w.Token),
				rows: []row{
					{prev, fmt.Sprintf("accept token %d", prev.Token)},
					{w, fmt.Sprintf("reject the repeat of token %d (strict); use --policy accept-equal if repeats are intended", w.Token)},
				},
			}
		}
	}
	return best
}

// wrongRejection: a write was rejected although no write that could have
// taken effect before its response carried a token that justifies it
// (Policy.MayReject: its token or above, under either policy; a rejection
// of token 0 is always justified). A receiver that refuses its current
// owner is broken, not safe.
func (e *explainer) wrongRejection() *finding {
	if !e.fenced {
		return nil
	}
	writers := slices.Clone(e.writers)
	slices.SortFunc(writers, func(a, b *histories.Operation) int { return cmp.Compare(a.Call, b.Call) })
	rejected := slices.Clone(e.rejected)
	slices.SortFunc(rejected, func(a, b *histories.Operation) int { return cmp.Compare(a.Return, b.Return) })
	var highest *histories.Operation
	j := 0
	for _, w := range rejected {
		for j < len(writers) && writers[j].Call <= w.Return {
			if highest == nil || writers[j].Token > highest.Token {
				highest = writers[j]
			}
			j++
		}
		var h uint64 // the highest token that can have taken effect; 0 initially
		if highest != nil {
			h = highest.Token
		}
		if e.policy.MayReject(h, w.Token) {
			continue
		}
		f := &finding{at: w.Return}
		if highest == nil {
			f.summary = fmt.Sprintf("write with token %d was rejected although no write had been sent to the resource before it answered", w.Token)
		} else {
			f.summary = fmt.Sprintf("write with token %d was rejected although the highest token that could have been accepted before it answered was %d (%s policy)",
				w.Token, highest.Token, e.policy)
			f.rows = append(f.rows, row{highest, fmt.Sprintf("token %d is the highest the resource could have seen", highest.Token)})
		}
		f.rows = append(f.rows, row{w, fmt.Sprintf("accept token %d: it is not stale", w.Token)})
		return f // rejected is sorted by return, so this is the earliest
	}
	return nil
}

// readOrigin: a read returned a value that no write which could have taken
// effect had written by then.
func (e *explainer) readOrigin() *finding {
	var best *finding
	consider := func(f *finding) {
		if best == nil || f.at < best.at {
			best = f
		}
	}
	for _, r := range e.reads {
		if !r.HasValue {
			continue
		}
		// The latest write of each kind, as the writes come latest first.
		var rejected, future, applied *histories.Operation
		writes := 0
		e.writesOf(r.Value, func(w *histories.Operation) bool {
			writes++
			switch {
			case !mayHaveApplied(w):
				rejected = cmp.Or(rejected, w)
			case w.Call > r.Return:
				future = cmp.Or(future, w)
			default:
				applied = cmp.Or(applied, w)
			}
			return true
		})
		switch {
		case applied != nil:
			if e.fenced && r.HasToken && r.Token != applied.Token && writes == 1 {
				consider(&finding{at: r.Return,
					summary: fmt.Sprintf("read reported token %d for value %q, which was written with token %d", r.Token, r.Value, applied.Token),
					rows: []row{
						{applied, fmt.Sprintf("record token %d with the value", applied.Token)},
						{r, fmt.Sprintf("report token %d with %q", applied.Token, r.Value)},
					}})
			}
		case rejected != nil:
			consider(&finding{at: r.Return,
				summary: fmt.Sprintf("read returned %q, the value of a write the resource rejected", r.Value),
				rows: []row{
					{rejected, "a rejected write changes nothing"},
					{r, "return the value of an accepted write"},
				}})
		case future != nil:
			consider(&finding{at: r.Return,
				summary: fmt.Sprintf("read returned %q before the write of that value was sent", r.Value),
				rows: []row{
					{r, "return a value written before the read ended"},
					{future, "this write started only after the read had returned"},
				}})
		default:
			consider(&finding{at: r.Return,
				summary: fmt.Sprintf("read returned %q, a value no write in the history wrote", r.Value),
				rows:    []row{{r, "return a value some write wrote, or not found"}}})
		}
	}
	return best
}

// staleRead: a read returned an older value although a write that must
// come after it had been accepted and had returned before the read began.
func (e *explainer) staleRead() *finding {
	// writerOf returns the write of value, when exactly one write wrote
	// it and it may have taken effect.
	writerOf := func(value string) *histories.Operation {
		var only *histories.Operation
		writes := 0
		e.writesOf(value, func(w *histories.Operation) bool {
			writes++
			only = w
			return writes < 2
		})
		if writes != 1 || !mayHaveApplied(only) {
			return nil
		}
		return only
	}
	accepted := slices.Clone(e.accepted)
	slices.SortFunc(accepted, func(a, b *histories.Operation) int { return cmp.Compare(a.Return, b.Return) })
	reads := slices.Clone(e.reads)
	slices.SortFunc(reads, func(a, b *histories.Operation) int { return cmp.Compare(a.Call, b.Call) })
	var maxToken, latest *histories.Operation // among accepted writes returned before the read
	j := 0
	var best *finding
	for _, r := range reads {
		for j < len(accepted) && accepted[j].Return < r.Call {
			a := accepted[j]
			if maxToken == nil || a.Token > maxToken.Token {
				maxToken = a
			}
			if latest == nil || a.Call > latest.Call {
				latest = a
			}
			j++
		}
		if latest == nil {
			continue
		}
		var f *finding
		if !r.HasValue {
			f = &finding{at: r.Return,
				summary: "read found the resource unwritten although a write had been accepted before the read began",
				rows: []row{
					{latest, "record the value"},
					{r, fmt.Sprintf("return %q or a newer value", latest.Value)},
				}}
		} else if w := writerOf(r.Value); w != nil {
			var newer *histories.Operation
			if e.fenced && maxToken.Token > w.Token {
				newer = maxToken
			} else if latest.Call > w.Return {
				newer = latest
			}
			if newer != nil {
				f = &finding{at: r.Return,
					summary: fmt.Sprintf("stale read: returned %q (token %d) although %q (token %d) had been accepted before the read began",
						r.Value, w.Token, newer.Value, newer.Token),
					rows: []row{
						{w, "older write"},
						{newer, "newer write, accepted and returned before the read"},
						{r, fmt.Sprintf("return %q or a newer value", newer.Value)},
					}}
			}
		}
		if f != nil && (best == nil || f.at < best.at) {
			best = f
		}
	}
	return best
}

// fallbackLimit bounds the size of a resource for which the fallback asks
// porcupine for its longest legal prefix.
const fallbackLimit = 5000

// fallback names the first operation that porcupine's longest legal prefix
// could not place, and the operations concurrent with it.
func fallback(ops []histories.Operation, opts Options) *finding {
	f := &finding{summary: fmt.Sprintf("no order of the %d operations on this resource explains the answers the resource gave", len(ops))}
	if len(ops) > fallbackLimit {
		return f
	}
	res, info := porcupine.CheckOperationsVerbose(Model(opts), ToPorcupine(ops), 10*time.Second)
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
	f.summary = fmt.Sprintf("no order of the operations on this resource explains the answers: the longest legal sequence places %d of %d operations and cannot continue with operation #%d",
		longest, len(ops), stuck.ID)
	f.at = stuck.Return // marks it as the culprit
	f.rows = append(f.rows, row{stuck, "an answer consistent with the operations before it"})
	for i := range ops {
		op := &ops[i]
		if op != stuck && op.Call <= stuck.Return && op.Return >= stuck.Call && len(f.rows) < 8 {
			f.rows = append(f.rows, row{op, "concurrent with it"})
		}
	}
	return f
}
