package model

import (
	"cmp"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// CapStats counts what the fencing cap changed.
type CapStats struct {
	Capped  int // unknown writes whose return time was shortened
	Dropped int // unknown writes removed because they could only be no-ops
}

// ApplyFencingCap shortens the intervals of unknown-outcome writes where
// fencing makes the rest of the interval irrelevant. It modifies ops in
// place and returns the ones to keep.
//
// Why it is sound: once a write with a token that bars t has been
// accepted (and has returned, so it has certainly taken effect), a write
// carrying t may no longer be accepted (Policy.MayAccept), because the
// highest token never decreases; so it can only be a no-op. A token bars
// t when it is t or above under strict, above t under accept-equal (where
// t itself may still be accepted). An unknown write either took effect
// before that return, or it is a no-op, which is legal at any point, or
// left out entirely. So its return time can be capped at the earliest
// return of such an accepted write, and the write can be dropped when that
// return precedes its invocation. Without the cap porcupine keeps every
// unknown write open until +∞ and explores all their orders; with it, an
// invalid 10,000-operation history with a few dozen unknown writes goes
// from a timeout to a fraction of a second.
//
// ops must all belong to one resource.
func ApplyFencingCap(p Policy, ops []histories.Operation) ([]histories.Operation, CapStats) {
	var stats CapStats
	caps := FencingCap(p, capWrites(ops, nil), nil)
	if len(caps) == 0 {
		return ops, stats // nothing to shorten: spare copying every operation onto itself
	}
	kept := ops[:0]
	for k, op := range ops {
		if len(caps) > 0 && caps[0].K == int32(k) {
			c := caps[0]
			caps = caps[1:]
			if !c.apply(&op) {
				stats.Dropped++
				continue
			}
			stats.Capped++
		}
		kept = append(kept, op)
	}
	return kept, stats
}

// cappedView is ApplyFencingCap for the operations of ops at positions
// pos (one resource's, increasing), without copying or modifying them: it
// returns pointers to them, except that a write the cap shortens points
// to a shortened copy and one it drops is left out.
func cappedView(p Policy, ops []histories.Operation, pos []int32) []*histories.Operation {
	caps := FencingCap(p, capWrites(ops, pos), nil)
	view := make([]*histories.Operation, 0, len(pos))
	for k, i := range pos {
		op := &ops[i]
		if len(caps) > 0 && caps[0].K == int32(k) {
			short := *op
			kept := caps[0].apply(&short)
			caps = caps[1:]
			if !kept {
				continue
			}
			op = &short
		}
		view = append(view, op)
	}
	return view
}

// CapWrite is what the fencing cap needs of a write that may have taken
// effect: K is its position in its group.
type CapWrite struct {
	K       int32
	Unknown bool // else accepted
	Token   uint64
	Ret     int64
}

// capWrites collects the accepted and unknown writes among ops (at
// positions pos, or all of them when pos is nil).
func capWrites(ops []histories.Operation, pos []int32) []CapWrite {
	var out []CapWrite
	n := len(ops)
	if pos != nil {
		n = len(pos)
	}
	for k := range n {
		op := &ops[k]
		if pos != nil {
			op = &ops[pos[k]]
		}
		if op.F == histories.FWrite && (op.Status == histories.StatusAccepted || op.Status == histories.StatusUnknown) {
			out = append(out, CapWrite{int32(k), op.Status == histories.StatusUnknown, op.Token, op.Return})
		}
	}
	return out
}

// Capped is an unknown write (at position K of its group) whose return the
// fencing cap moves back to Limit; Limit < its Call means the write can
// only have been a no-op.
type Capped struct {
	K     int32
	Limit int64
}

// Keeps reports whether a write invoked at call is kept: a write whose
// cap comes before its invocation can only have been a no-op.
func (c Capped) Keeps(call int64) bool { return c.Limit >= call }

// apply caps op's return, and reports whether op is kept (see Keeps).
func (c Capped) apply(op *histories.Operation) bool {
	if !c.Keeps(op.Call) {
		return false
	}
	op.Return = c.Limit
	return true
}

// CapScratch holds FencingCap's buffers, so that a caller that caps many
// resources (the fast checker) allocates them once. The nil *CapScratch is
// valid: FencingCap then allocates.
type CapScratch struct {
	accepted []capAccepted
	earliest []int64
	caps     []Capped
}

// capAccepted is an accepted write as the cap sees it.
type capAccepted struct {
	token uint64
	ret   int64
}

// FencingCap computes the cap for the writes of one resource, in group
// order; it returns the capped ones, in the same order, in sc's buffer
// when sc is not nil. ApplyFencingCap, Prepare and the fast checker share it, so
// that both checkers judge the same intervals.
//
// The accepted writes are sorted by token (a history that fencecheck
// recorded has them in that order already, which is checked first), and
// each unknown write finds the first accepted token that bars its own by
// binary search for Policy.LowestBar; the earliest return from
// there on is its cap. That is O(n log n).
func FencingCap(p Policy, writes []CapWrite, sc *CapScratch) []Capped {
	if sc == nil {
		sc = new(CapScratch)
	}
	unknown := 0
	for _, w := range writes {
		if w.Unknown {
			unknown++
		}
	}
	// Sized first, so that a history of a million writes does not leave
	// the copies of growing them as garbage.
	accepted := slices.Grow(sc.accepted[:0], len(writes)-unknown)
	for _, w := range writes {
		if !w.Unknown {
			accepted = append(accepted, capAccepted{w.Token, w.Ret})
		}
	}
	sc.accepted = accepted
	if len(accepted) == 0 || unknown == 0 {
		return nil
	}
	byToken := func(a, b capAccepted) int { return cmp.Compare(a.token, b.token) }
	if !slices.IsSortedFunc(accepted, byToken) {
		slices.SortFunc(accepted, byToken)
	}
	// earliest[i] is the earliest return among accepted[i:].
	n := len(accepted)
	earliest := slices.Grow(sc.earliest[:0], n+1)[:n+1]
	earliest[n] = histories.Infinity
	for i := n - 1; i >= 0; i-- {
		earliest[i] = min(earliest[i+1], accepted[i].ret)
	}
	sc.earliest = earliest
	caps := slices.Grow(sc.caps[:0], unknown)
	for _, w := range writes {
		if !w.Unknown {
			continue
		}
		first := n
		if lowest, ok := p.LowestBar(w.Token); ok {
			first, _ = slices.BinarySearchFunc(accepted, lowest, func(a capAccepted, t uint64) int { return cmp.Compare(a.token, t) })
		}
		if limit := earliest[first]; limit < w.Ret {
			caps = append(caps, Capped{w.K, limit})
		}
	}
	sc.caps = caps
	return caps
}
