package explain

import (
	"cmp"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// eventsOf rebuilds the events of a sub-history: the invocation and
// completion of each operation in ops and the events in others, in their
// original order, renumbered from histories.FirstIndex. Written with
// histories.Write, which puts the header before them, they are a history
// file in its own right, which fencecheck check reads and judges again;
// that is how a minimal counterexample becomes a regression fixture.
//
// An operation whose outcome is unknown is written without a completion,
// which the format reads the same way as an info completion: the time of
// an info completion is not kept in an Operation, and an unknown
// operation is always the last of its process.
func eventsOf(ops []histories.Operation, others []histories.Event) []histories.Event {
	events := make([]histories.Event, 0, 2*len(ops)+len(others))
	for i := range ops {
		op := &ops[i]
		invocation, completion := op.Events()
		events = append(events, invocation)
		if op.Initial {
			continue // one event states it
		}
		if op.CompleteIndex >= 0 && op.Return != histories.Infinity {
			events = append(events, completion)
		}
	}
	events = append(events, others...)
	slices.SortStableFunc(events, func(a, b histories.Event) int { return cmp.Compare(a.Index, b.Index) })
	for i := range events {
		events[i].Index = histories.FirstIndex + int64(i)
		if i > 0 && events[i].Time < events[i-1].Time {
			// An Initial operation keeps no time of its event: it
			// takes the time of the event before it.
			events[i].Time = events[i-1].Time
		}
	}
	return events
}
