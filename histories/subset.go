package histories

import (
	"cmp"
	"slices"
)

// Subset rebuilds the events of a sub-history: the invocation and
// completion of each operation in ops and the events in others, in their
// original order, renumbered from FirstIndex. Written with Write, which
// puts the header before them, they are a history file in its own right,
// which fencecheck check reads and judges again; that is how a minimal
// counterexample becomes a regression fixture.
//
// An operation whose outcome is unknown is written without a completion,
// which the format reads the same way as an info completion: the time of
// an info completion is not kept in an Operation, and an unknown
// operation is always the last of its process.
func Subset(ops []Operation, others []Event) []Event {
	events := make([]Event, 0, 2*len(ops)+len(others))
	for i := range ops {
		op := &ops[i]
		invocation, completion := op.Events()
		events = append(events, invocation)
		if op.Initial {
			continue // one event states it
		}
		if op.CompleteIndex >= 0 && op.Return != Infinity {
			events = append(events, completion)
		}
	}
	events = append(events, others...)
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.Index, b.Index) })
	for i := range events {
		events[i].Index = FirstIndex + int64(i)
		if i > 0 && events[i].Time < events[i-1].Time {
			// An Initial operation keeps no time of its event: it
			// takes the time of the event before it.
			events[i].Time = events[i-1].Time
		}
	}
	return events
}

// Events rebuilds the two events of o, as a history file holds them. The
// invocation is at o.InvokeIndex; for an Initial operation, it is the
// harness's event that states it, and no completion belongs to it. The
// completion is at o.CompleteIndex and o.Return: an info completion
// when its outcome is unknown (a caller that writes one chooses its time,
// as Return is then Infinity).
func (o *Operation) Events() (invocation, completion Event) {
	return o.invocation(), o.completion()
}

// invocation rebuilds the invocation event of o (Events).
func (o *Operation) invocation() Event {
	if o.Initial {
		return Event{Index: o.InvokeIndex, Time: 0, Process: -1, Actor: actorHarness, F: fInitial, Resource: o.Resource,
			Token: o.Token, HasToken: true, Value: o.Value, HasValue: true}
	}
	e := Event{Index: o.InvokeIndex, Time: o.Call, Process: o.Process, Type: TypeInvoke, F: o.F, Resource: o.Resource, Trace: o.Trace}
	if o.IsWrite() {
		e.Token, e.HasToken, e.Value, e.HasValue = o.Token, true, o.Value, true
	}
	return e
}

// completion rebuilds the completion event of o (Events).
func (o *Operation) completion() Event {
	e := Event{Index: o.CompleteIndex, Time: o.Return, Process: o.Process, F: o.F, Resource: o.Resource, Type: TypeOK}
	switch {
	case o.Status == StatusUnknown:
		e.Type = TypeInfo
	case o.Status == StatusFailed:
		e.Type = TypeFail
	case o.IsWrite():
		e.Token, e.HasToken, e.Value, e.HasValue = o.Token, true, o.Value, true
		e.Outcome = Rejected
		if o.Status == StatusAccepted {
			e.Outcome = Accepted
		}
	default:
		e.Token, e.HasToken, e.Value, e.HasValue = o.Token, o.HasToken, o.Value, o.HasValue
	}
	return e
}
