package models

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
	caps := fencingCap(p, capWrites(ops, nil), nil)
	if len(caps) == 0 {
		return ops, stats // nothing to shorten: spare copying every operation onto itself
	}
	kept := ops[:0]
	for k, op := range ops {
		if len(caps) > 0 && caps[0].k == int32(k) {
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
	caps := fencingCap(p, capWrites(ops, pos), nil)
	view := make([]*histories.Operation, 0, len(pos))
	for k, i := range pos {
		op := &ops[i]
		if len(caps) > 0 && caps[0].k == int32(k) {
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

// capWrite is what the fencing cap needs of a write that may have taken
// effect: k is its position in its group.
type capWrite struct {
	k       int32
	unknown bool // else accepted
	token   uint64
	ret     int64
}

// capWrites collects the accepted and unknown writes among ops (at
// positions pos, or all of them when pos is nil).
func capWrites(ops []histories.Operation, pos []int32) []capWrite {
	var out []capWrite
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
			out = append(out, capWrite{int32(k), op.Status == histories.StatusUnknown, op.Token, op.Return})
		}
	}
	return out
}

// capped is an unknown write (at position k of its group) whose return the
// fencing cap moves back to limit; limit < its Call means the write can
// only have been a no-op.
type capped struct {
	k     int32
	limit int64
}

// keeps reports whether a write invoked at call is kept: a write whose
// cap comes before its invocation can only have been a no-op.
func (c capped) keeps(call int64) bool { return c.limit >= call }

// apply caps op's return, and reports whether op is kept (see keeps).
func (c capped) apply(op *histories.Operation) bool {
	if !c.keeps(op.Call) {
		return false
	}
	op.Return = c.limit
	return true
}

// capScratch holds fencingCap's buffers, so that a caller that caps many
// resources (CheckFast) allocates them once. The nil *capScratch is
// valid: fencingCap then allocates.
type capScratch struct {
	accepted []capAccepted
	earliest []int64
	caps     []capped
}

// capAccepted is an accepted write as the cap sees it.
type capAccepted struct {
	token uint64
	ret   int64
}

// fencingCap computes the cap for the writes of one resource, in group
// order; it returns the capped ones, in the same order, in sc's buffer
// when sc is not nil. ApplyFencingCap, Prepare and CheckFast share it, so
// that both checkers judge the same intervals.
//
// The accepted writes are sorted by token (a history that fencecheck
// recorded has them in that order already, which is checked first), and
// each unknown write finds the first accepted token that bars its own by
// binary search for Policy.lowestBar; the earliest return from
// there on is its cap. That is O(n log n).
func fencingCap(p Policy, writes []capWrite, sc *capScratch) []capped {
	if sc == nil {
		sc = new(capScratch)
	}
	accepted := sc.accepted[:0]
	unknown := 0
	for _, w := range writes {
		if w.unknown {
			unknown++
		} else {
			accepted = append(accepted, capAccepted{w.token, w.ret})
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
	caps := sc.caps[:0]
	for _, w := range writes {
		if !w.unknown {
			continue
		}
		first := n
		if lowest, ok := p.lowestBar(w.token); ok {
			first, _ = slices.BinarySearchFunc(accepted, lowest, func(a capAccepted, t uint64) int { return cmp.Compare(a.token, t) })
		}
		if limit := earliest[first]; limit < w.ret {
			caps = append(caps, capped{w.k, limit})
		}
	}
	sc.caps = caps
	return caps
}
