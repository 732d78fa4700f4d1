package explain

import (
	"cmp"
	"context"
	"hash/maphash"
	"slices"
	"sort"
	"sync"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/parallel"
	"github.com/fencecheck/fencecheck/model"
)

// universe is the original history of one resource: every operation the
// history recorded on it, failed ones and the state before the run
// included, unchanged by the fencing cap. A finding's claims are
// statements about it, so that an explanation of a sub-history (a
// minimal counterexample, or the prefix explainResource gives the rules) still says
// what is true of the history the user recorded: a universal claim ("no
// write sent before the rejection answered justifies it", "value v is
// written by exactly these writes") is answered here, never by the
// sub-history at hand. It is built only for violating resources, once,
// and read concurrently by the rules.
type universe struct {
	resource string
	policy   model.Policy
	fenced   bool
	// The history's operations; the resource's are at positions. Every
	// index below holds positions in all (int32: no pointers for the
	// garbage collector to scan, and half the size).
	all []histories.Operation
	ops []int32 // the resource's, in history order
	// byID maps IDs to positions, for histories whose IDs are not their
	// positions (sub-histories); nil otherwise.
	byID map[int]int32
	// writes are the resource's writes in history order; values finds
	// the first and last write of a value (indexes in writes) and
	// sameNext chains each to the next write of the same value, or -1.
	writes   []int32
	values   valueTable
	sameNext []int32
	// writers are the writes that may have taken effect (accepted,
	// unknown, the state before the run), by invocation; highestUpTo[k]
	// is the one with the highest token among writers[:k+1] (the first
	// of them on a tie).
	writers     []int32
	highestUpTo []int32
	// accepted are the accepted writes by token; earliestFrom[k] is the
	// one among accepted[k:] that returned first: the writes that bar a
	// token are a suffix of them (model.Policy.LowestBar).
	accepted     []int32
	earliestFrom []int32
	// The two indexes above are built on first need: a violation that
	// involves no rejection and no unknown write needs neither.
	writersOnce, acceptedOnce sync.Once

	holdsOnce [2]sync.Once
	holds     [2]bool
}

// newUniverse collects the operations of resource from all, the whole
// history. It costs a pass over all and O(n log n) in the resource's
// operations (the sorts are skipped when, as in recorded histories, the
// operations are in order already); only violating resources have one.
func newUniverse(all []histories.Operation, resource string, opts check.Options) *universe {
	u := &universe{resource: resource, policy: opts.Policy, fenced: opts.Kind == model.KindFenced, all: all}
	// The pass reads every operation of the history, which is most of
	// what explaining the one violating resource of a large history
	// costs, so it is split over the cores.
	type part struct {
		ops, writes []int32
		positions   bool
	}
	parts := make([]part, parallel.Workers(len(all)/65536))
	parallel.Run(len(parts), func(_, c int) {
		lo, hi := c*len(all)/len(parts), (c+1)*len(all)/len(parts)
		// Room for the whole stretch: all holds the violating resources'
		// operations only, most of them usually this one's, and growing
		// the positions of a million operations left twice their size in
		// garbage, which the peak of explaining paid.
		p := part{positions: true, ops: make([]int32, 0, hi-lo)}
		for i := lo; i < hi; i++ {
			op := &all[i]
			if op.Resource != resource {
				continue
			}
			p.ops = append(p.ops, int32(i))
			p.positions = p.positions && op.ID == i
			if op.F == histories.FWrite {
				p.writes = append(p.writes, int32(i))
			}
		}
		parts[c] = p
	})
	positions := true
	nops, nwrites := 0, 0
	for _, p := range parts {
		nops, nwrites = nops+len(p.ops), nwrites+len(p.writes)
	}
	u.ops, u.writes = make([]int32, 0, nops), make([]int32, 0, nwrites)
	for _, p := range parts {
		u.ops = append(u.ops, p.ops...)
		u.writes = append(u.writes, p.writes...)
		positions = positions && p.positions
	}
	if !positions {
		u.byID = make(map[int]int32, len(u.ops))
		for _, k := range u.ops {
			u.byID[all[k].ID] = k
		}
	}
	u.index()
	return u
}

func (u *universe) at(k int32) *histories.Operation { return &u.all[k] }

func (u *universe) index() {
	u.values = newValueTable(len(u.writes))
	u.sameNext = make([]int32, len(u.writes))
	for w := range u.writes {
		u.sameNext[w] = -1
		if prev := u.values.add(u, int32(w)); prev >= 0 {
			u.sameNext[prev] = int32(w)
		}
	}
}

// indexWriters builds writers and highestUpTo.
func (u *universe) indexWriters() {
	for _, k := range u.writes {
		if mayHaveApplied(u.at(k)) {
			u.writers = append(u.writers, k)
		}
	}
	byCall := func(a, b int32) int { return cmp.Compare(u.at(a).Call, u.at(b).Call) }
	if !slices.IsSortedFunc(u.writers, byCall) {
		slices.SortStableFunc(u.writers, byCall)
	}
	u.highestUpTo = make([]int32, len(u.writers))
	for k, w := range u.writers {
		u.highestUpTo[k] = int32(k)
		if k > 0 && u.at(u.writers[u.highestUpTo[k-1]]).Token >= u.at(w).Token {
			u.highestUpTo[k] = u.highestUpTo[k-1]
		}
	}
}

// indexAccepted builds accepted and earliestFrom.
func (u *universe) indexAccepted() {
	for _, k := range u.writes {
		if u.at(k).Status == histories.StatusAccepted {
			u.accepted = append(u.accepted, k)
		}
	}
	byToken := func(a, b int32) int { return cmp.Compare(u.at(a).Token, u.at(b).Token) }
	if !slices.IsSortedFunc(u.accepted, byToken) {
		slices.SortStableFunc(u.accepted, byToken)
	}
	u.earliestFrom = make([]int32, len(u.accepted))
	for k := len(u.accepted) - 1; k >= 0; k-- {
		u.earliestFrom[k] = int32(k)
		if k+1 < len(u.accepted) && u.at(u.accepted[u.earliestFrom[k+1]]).Return < u.at(u.accepted[k]).Return {
			u.earliestFrom[k] = u.earliestFrom[k+1]
		}
	}
}

// byOpID returns the operation of the resource with ID id, or nil for -1.
func (u *universe) byOpID(id int) *histories.Operation {
	if id < 0 {
		return nil
	}
	if u.byID == nil {
		return &u.all[id]
	}
	if k, ok := u.byID[id]; ok {
		return u.at(k)
	}
	return nil
}

// prepared returns the resource's operations as a checker judges them:
// filtered, and capped for the fenced register (model.Prepare).
func (u *universe) prepared(opts check.Options) []histories.Operation {
	var ops []histories.Operation
	for _, k := range u.ops {
		if op := u.at(k); model.Checkable(op) {
			ops = append(ops, *op)
		}
	}
	if opts.Kind == model.KindFenced {
		ops, _ = model.ApplyFencingCap(opts.Policy, ops)
	}
	return ops
}

// op returns the original of an operation (which may be a copy the
// fencing cap shortened), by its ID.
func (u *universe) op(x *histories.Operation) *histories.Operation {
	if x == nil {
		return nil
	}
	if u.byID == nil {
		if x.ID >= 0 && x.ID < len(u.all) {
			return &u.all[x.ID]
		}
		return x
	}
	if k, ok := u.byID[x.ID]; ok {
		return u.at(k)
	}
	return x
}

// eachWrite calls fn with every write of the resource that wrote value,
// whatever its outcome, in history order, until fn returns false.
func (u *universe) eachWrite(value string, fn func(w *histories.Operation) bool) {
	for w := u.values.first(u, value); w >= 0; w = u.sameNext[w] {
		if !fn(u.at(u.writes[w])) {
			return
		}
	}
}

// written reports whether some write of the resource, of any outcome,
// wrote value.
func (u *universe) written(value string) bool { return u.values.first(u, value) >= 0 }

// valueTable maps a value to the first and last of its writes: an
// open-addressing table on the value's hash, at most two thirds full, like
// the fast checker's index (a Go map of strings cost the explanation of a violating
// resource more than half its time, BenchmarkCheckFast's invalid cells).
type valueTable struct {
	seed  maphash.Seed
	slots []valueSlot
	mask  uint64
}

type valueSlot struct {
	hash        uint32 // the high half of the value's hash; the low half picks the slot
	first, last int32  // indexes in the universe's writes, plus one; 0: empty
}

func newValueTable(n int) valueTable {
	size := 8
	for size < n+n/2 {
		size *= 2
	}
	return valueTable{seed: maphash.MakeSeed(), slots: make([]valueSlot, size), mask: uint64(size - 1)}
}

// slot returns the slot of value: its own, or the empty one where it goes.
func (t *valueTable) slot(u *universe, value string, h uint64) *valueSlot {
	high := uint32(h >> 32)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.first == 0 || s.hash == high && u.at(u.writes[s.first-1]).Value == value {
			return s
		}
	}
}

// add records write w (an index in writes) and returns the previous
// write of its value, or -1.
func (t *valueTable) add(u *universe, w int32) int32 {
	v := u.at(u.writes[w]).Value
	h := maphash.String(t.seed, v)
	s := t.slot(u, v, h)
	prev := s.last - 1
	if s.first == 0 {
		s.hash, s.first = uint32(h>>32), w+1
	}
	s.last = w + 1
	return prev
}

// first returns the first write of value (an index in writes), or -1.
func (t *valueTable) first(u *universe, value string) int32 {
	return t.slot(u, value, maphash.String(t.seed, value)).first - 1
}

// writersOf returns the writes that may have taken effect, by invocation.
func (u *universe) writersOf() []*histories.Operation {
	u.writersOnce.Do(u.indexWriters)
	out := make([]*histories.Operation, len(u.writers))
	for i, k := range u.writers {
		out[i] = u.at(k)
	}
	return out
}

// highestSentBy returns the write with the highest token among those that
// may have taken effect and were invoked at or before t, or nil.
func (u *universe) highestSentBy(t int64) *histories.Operation {
	u.writersOnce.Do(u.indexWriters)
	k := sort.Search(len(u.writers), func(k int) bool { return u.at(u.writers[k]).Call > t })
	if k == 0 {
		return nil
	}
	return u.at(u.writers[u.highestUpTo[k-1]])
}

// earliestJustifier returns the first-invoked write that may have taken
// effect and whose token justifies rejecting r, or nil.
func (u *universe) earliestJustifier(r *histories.Operation) *histories.Operation {
	u.writersOnce.Do(u.indexWriters)
	for _, k := range u.writers {
		if w := u.at(k); u.policy.MayReject(w.Token, r.Token) {
			return w
		}
	}
	return nil
}

// earliestBarring returns the accepted write whose token bars w's that
// returned first, or nil: w cannot take effect after it returned (the
// fencing cap's limit).
func (u *universe) earliestBarring(w *histories.Operation) *histories.Operation {
	lowest, ok := u.policy.LowestBar(w.Token)
	if !ok {
		return nil
	}
	u.acceptedOnce.Do(u.indexAccepted)
	k, _ := slices.BinarySearchFunc(u.accepted, lowest, func(a int32, t uint64) int { return cmp.Compare(u.at(a).Token, t) })
	if k == len(u.accepted) {
		return nil
	}
	return u.at(u.accepted[u.earliestFrom[k]])
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
func (u *universe) holdsUnder(p model.Policy) bool {
	u.holdsOnce[p].Do(func() {
		ops := make([]histories.Operation, len(u.ops))
		for i, k := range u.ops {
			ops[i] = *u.at(k)
		}
		res, err := check.Check(context.Background(), histories.FromOperations(ops), check.Options{Kind: model.KindFenced, Policy: p, Timeout: adviceTimeout})
		u.holds[p] = err == nil && res.Verdict == check.Held
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
	case w.Status != histories.StatusUnknown:
		// An accepted write that a barring one had preceded is a stale
		// write accepted, which staleAccepted explains; a read of it is
		// not what is wrong first.
		return causeNone, nil
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
	causeBarred                       // unknown, and a write whose token bars it had been accepted before it was sent (the fencing cap drops it)
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
		var os []origin
		u.eachWrite(r.Value, func(w *histories.Operation) bool {
			why, barrer := u.whyNot(w, r.Return)
			os = append(os, origin{w, why, barrer})
			return true
		})
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
	unique := true
	u.eachWrite(r.Value, func(w *histories.Operation) bool {
		if why, _ := u.whyNot(w, r.Return); why == causeNone {
			unique = only == nil
			only = w
		}
		return unique
	})
	if !unique {
		return nil
	}
	return only
}
