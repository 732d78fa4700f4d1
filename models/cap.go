package models

import (
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
// Why it is sound: once a write with a token that blocks t has been
// accepted (and has returned, so it has certainly taken effect), a write
// carrying t can only be a no-op. An unknown write either took effect
// before that return, or it is a no-op that could be placed anywhere, or
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
	type acc struct {
		token uint64
		ret   int64
	}
	var accepted []acc
	for i := range ops {
		if ops[i].IsWrite() && ops[i].Status == histories.StatusAccepted {
			accepted = append(accepted, acc{ops[i].Token, ops[i].Return})
		}
	}
	if len(accepted) == 0 {
		return ops, stats
	}
	slices.SortFunc(accepted, func(a, b acc) int {
		switch {
		case a.token < b.token:
			return -1
		case a.token > b.token:
			return 1
		}
		return 0
	})
	// suffixMin[i] is the earliest return among accepted[i:].
	suffixMin := make([]int64, len(accepted)+1)
	suffixMin[len(accepted)] = histories.Infinity
	for i := len(accepted) - 1; i >= 0; i-- {
		suffixMin[i] = min(suffixMin[i+1], accepted[i].ret)
	}
	kept := ops[:0]
	for _, op := range ops {
		if op.IsWrite() && op.Status == histories.StatusUnknown {
			// First accepted token that blocks op.Token: ≥ under strict,
			// > under accept-equal.
			first, _ := slices.BinarySearchFunc(accepted, op.Token, func(a acc, t uint64) int {
				if p.Blocks(a.token, t) {
					return 1
				}
				return -1
			})
			if limit := suffixMin[first]; limit < op.Return {
				if limit < op.Call {
					stats.Dropped++
					continue
				}
				op.Return = limit
				stats.Capped++
			}
		}
		kept = append(kept, op)
	}
	return kept, stats
}
