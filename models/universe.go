package models

import (
	"cmp"
	"slices"
	"sort"
	"sync"

	"github.com/fencecheck/fencecheck/histories"
)

// universe is the original history of one resource: every operation the
// history recorded on it, failed ones and the state before the run
// included, unchanged by the fencing cap. A finding's claims are
// statements about it, so that an explanation of a sub-history (a
// minimal counterexample, or the prefix CheckFast explains) still says
// what is true of the history the user recorded: a universal claim ("no
// write sent before the rejection answered justifies it", "value v is
// written by exactly these writes") is answered here, never by the
// sub-history at hand. It is built only for violating resources, once,
// and read concurrently by the rules.
type universe struct {
	resource string
	policy   Policy
	fenced   bool
	ops      []*histories.Operation // the resource's operations, in history order
	byID     map[int]*histories.Operation
	byValue  map[string][]*histories.Operation // the writes of each value, any status, in history order
	// writers are the writes that may have taken effect (accepted,
	// unknown, the state before the run), by invocation; highestUpTo[k]
	// is the one with the highest token among writers[:k+1] (the first
	// of them on a tie).
	writers     []*histories.Operation
	highestUpTo []int32
	// accepted are the accepted writes by token; earliestFrom[k] is the
	// one among accepted[k:] that returned first: the writes that bar a
	// token are a suffix of them (Policy.lowestBar).
	accepted     []*histories.Operation
	earliestFrom []int32

	holdsOnce [2]sync.Once
	holds     [2]bool
}

// newUniverse collects the operations of resource from all, the whole
// history.
func newUniverse(all []histories.Operation, resource string, opts Options) *universe {
	u := &universe{resource: resource, policy: opts.Policy, fenced: opts.Kind == KindFenced}
	for i := range all {
		if all[i].Resource == resource {
			u.ops = append(u.ops, &all[i])
		}
	}
	u.index()
	return u
}

func (u *universe) index() {
	u.byID = make(map[int]*histories.Operation, len(u.ops))
	u.byValue = make(map[string][]*histories.Operation)
	for _, op := range u.ops {
		u.byID[op.ID] = op
		if !op.IsWrite() {
			continue
		}
		u.byValue[op.Value] = append(u.byValue[op.Value], op)
		if mayHaveApplied(op) {
			u.writers = append(u.writers, op)
		}
		if op.Status == histories.StatusAccepted {
			u.accepted = append(u.accepted, op)
		}
	}
	slices.SortStableFunc(u.writers, func(a, b *histories.Operation) int { return cmp.Compare(a.Call, b.Call) })
	u.highestUpTo = make([]int32, len(u.writers))
	for k, w := range u.writers {
		u.highestUpTo[k] = int32(k)
		if k > 0 && u.writers[u.highestUpTo[k-1]].Token >= w.Token {
			u.highestUpTo[k] = u.highestUpTo[k-1]
		}
	}
	slices.SortStableFunc(u.accepted, func(a, b *histories.Operation) int { return cmp.Compare(a.Token, b.Token) })
	u.earliestFrom = make([]int32, len(u.accepted))
	for k := len(u.accepted) - 1; k >= 0; k-- {
		u.earliestFrom[k] = int32(k)
		if k+1 < len(u.accepted) && u.accepted[u.earliestFrom[k+1]].Return < u.accepted[k].Return {
			u.earliestFrom[k] = u.earliestFrom[k+1]
		}
	}
}

// op returns the original of an operation (which may be a copy the
// fencing cap shortened), by its ID.
func (u *universe) op(x *histories.Operation) *histories.Operation {
	if x == nil {
		return nil
	}
	if o, ok := u.byID[x.ID]; ok {
		return o
	}
	return x
}

// writesOf returns every write of the resource that wrote value, whatever
// its outcome.
func (u *universe) writesOf(value string) []*histories.Operation { return u.byValue[value] }

// highestSentBy returns the write with the highest token among those that
// may have taken effect and were invoked at or before t, or nil.
func (u *universe) highestSentBy(t int64) *histories.Operation {
	k := sort.Search(len(u.writers), func(k int) bool { return u.writers[k].Call > t })
	if k == 0 {
		return nil
	}
	return u.writers[u.highestUpTo[k-1]]
}

// earliestJustifier returns the first-invoked write that may have taken
// effect and whose token justifies rejecting r, or nil.
func (u *universe) earliestJustifier(r *histories.Operation) *histories.Operation {
	for _, w := range u.writers {
		if u.policy.MayReject(w.Token, r.Token) {
			return w
		}
	}
	return nil
}

// earliestBarring returns the accepted write whose token bars w's that
// returned first, or nil: w cannot take effect after it returned (the
// fencing cap's limit).
func (u *universe) earliestBarring(w *histories.Operation) *histories.Operation {
	lowest, ok := u.policy.lowestBar(w.Token)
	if !ok {
		return nil
	}
	k, _ := slices.BinarySearchFunc(u.accepted, lowest, func(a *histories.Operation, t uint64) int { return cmp.Compare(a.Token, t) })
	if k == len(u.accepted) {
		return nil
	}
	return u.accepted[u.earliestFrom[k]]
}

// barredBefore returns an accepted write that returned before w was
// invoked and whose token bars w's (the earliest to return), or nil: then
// w cannot take effect, as the highest token never decreases.
func (u *universe) barredBefore(w *histories.Operation) *histories.Operation {
	if a := u.earliestBarring(w); a != nil && a.Return < w.Call {
		return a
	}
	return nil
}

// holdsUnder reports whether the resource's history holds under policy
// p: the condition for advising p. It is computed once per policy, with
// the fast checker, or porcupine within a bound where the fast one cannot
// judge (a check that gives up does not hold).
func (u *universe) holdsUnder(p Policy) bool {
	u.holdsOnce[p].Do(func() {
		ops := make([]histories.Operation, len(u.ops))
		for i, op := range u.ops {
			ops[i] = *op
		}
		opts := Options{Kind: KindFenced, Policy: p, Timeout: adviceTimeout}
		res, err := CheckFast(ops, opts)
		if err != nil {
			res = CheckPorcupine(ops, opts)
		}
		u.holds[p] = res.Verdict == Held
	})
	return u.holds[p]
}

// adviceTimeout bounds the check behind advice to change the policy.
const adviceTimeout = 2_000_000_000 // 2s

// whyNot says why write w cannot have produced a value that a read
// answered at t, or causeNone when it may have; with the accepted write
// that bars it, when that is the reason.
func (u *universe) whyNot(w *histories.Operation, t int64) (cause, *histories.Operation) {
	switch {
	case w.Status == histories.StatusRejected:
		return causeRejected, nil
	case w.Status == histories.StatusFailed:
		return causeFailed, nil
	case w.Call > t:
		return causeSentAfter, nil
	case !u.fenced:
		return causeNone, nil
	case !u.policy.MayAccept(0, w.Token):
		return causeNeverAcceptable, nil
	}
	if a := u.barredBefore(w); a != nil {
		return causeBarred, a
	}
	return causeNone, nil
}

// cause is why a write cannot have produced a value a read returned.
type cause uint8

const (
	causeNone            cause = iota // it may have
	causeRejected                     // the resource rejected it
	causeFailed                       // it failed: never applied
	causeSentAfter                    // it was sent only after the read had returned
	causeNeverAcceptable              // its token can never be accepted (0 under strict)
	causeBarred                       // a write whose token bars it had been accepted before it was sent
)

// originsOf returns, for each of the reads given that returned a value
// (others are skipped), every write of that value with why it cannot
// have produced it by the read's return.
func (u *universe) originsOf(reads ...*histories.Operation) map[*histories.Operation][]origin {
	out := make(map[*histories.Operation][]origin, len(reads))
	for _, r := range reads {
		if r == nil || r.IsWrite() || !r.HasValue {
			continue
		}
		ws := u.writesOf(r.Value)
		os := make([]origin, 0, len(ws))
		for _, w := range ws {
			why, barrer := u.whyNot(w, r.Return)
			os = append(os, origin{w, why, barrer})
		}
		out[r] = os
	}
	return out
}

// source returns the write whose value read r returned, when exactly one
// write of that value can have produced it by r's return; else nil.
func (u *universe) source(r *histories.Operation) *histories.Operation {
	if r.IsWrite() || !r.HasValue {
		return nil
	}
	var only *histories.Operation
	for _, w := range u.writesOf(r.Value) {
		if why, _ := u.whyNot(w, r.Return); why == causeNone {
			if only != nil {
				return nil
			}
			only = w
		}
	}
	return only
}
