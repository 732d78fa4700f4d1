package check

import (
	"sort"

	"github.com/fencecheck/fencecheck/histories"
)

// fastState is one way the writes swept so far may have taken effect,
// reduced to the two numbers the rest of the sweep depends on.
type fastState struct {
	// next: the next write to take effect does so at or after this time
	// (the last write's own point, and the invocations of its reads).
	next bound
	// due: the earliest return among rejections that no write swept so
	// far justifies; the next write to take effect must do so by then.
	// Infinity when no rejection is waiting.
	due bound
}

var nothingDue = bound{histories.Infinity, -1}

// fastFront holds the states that are not dominated: a state with an
// earlier next and a later due leaves every choice the other leaves, and
// more. Sorted by next, the states therefore have increasing dues too, and
// only the last can have nothing due. Every operation below is amortized
// O(1) or a binary search.
type fastFront struct {
	states []fastState
}

func (f *fastFront) empty() bool { return len(f.states) == 0 }

func (f *fastFront) last() fastState { return f.states[len(f.states)-1] }

// reset leaves the single state s, when a forced write ends every choice.
func (f *fastFront) reset(s fastState) { f.states = append(f.states[:0], s) }

// add inserts a state with nothing due.
func (f *fastFront) add(next bound) {
	for len(f.states) > 0 && f.last().next.at >= next.at {
		f.states = f.states[:len(f.states)-1]
	}
	if len(f.states) > 0 && f.last().due.at == histories.Infinity {
		return // an earlier state with nothing due dominates it
	}
	f.states = append(f.states, fastState{next: next, due: nothingDue})
}

// reject makes every state wait for a rejection that returned at due.
// States whose next write cannot come by then are impossible; of those
// that wait for nothing earlier, only the one with the earliest next
// survives. It returns the earliest state it found impossible, for the
// witness when none survives.
func (f *fastFront) reject(due bound) (lost fastState) {
	for len(f.states) > 0 && f.last().next.at > due.at {
		lost = f.last()
		f.states = f.states[:len(f.states)-1]
	}
	for n := len(f.states); n >= 2 && f.states[n-2].due.at >= due.at; n = len(f.states) {
		f.states = f.states[:n-1]
	}
	if n := len(f.states); n > 0 && f.states[n-1].due.at > due.at {
		f.states[n-1].due = due
	}
	return lost
}

// firstDueBy returns the position of the first state whose due is at or
// after t: the state with the earliest next among those in which a write
// invoked at t can still come in time.
func (f *fastFront) firstDueBy(t int64) int {
	return sort.Search(len(f.states), func(i int) bool { return f.states[i].due.at >= t })
}
