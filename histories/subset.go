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
		events = append(events, Invocation(op))
		if op.Initial {
			continue // one event states it
		}
		if op.CompleteIndex >= 0 && op.Return != Infinity {
			events = append(events, Completion(op))
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

// Invocation rebuilds the invocation event of op, at op.InvokeIndex; for
// an Initial operation, the harness's event that states it.
func Invocation(op *Operation) Event {
	if op.Initial {
		return Event{Index: op.InvokeIndex, Time: 0, Process: -1, Actor: ActorHarness, F: FInitial, Resource: op.Resource,
			Token: op.Token, HasToken: true, Value: op.Value, HasValue: true}
	}
	e := Event{Index: op.InvokeIndex, Time: op.Call, Process: op.Process, Type: TypeInvoke, F: op.F, Resource: op.Resource, Trace: op.Trace}
	if op.IsWrite() {
		e.Token, e.HasToken, e.Value, e.HasValue = op.Token, true, op.Value, true
	}
	return e
}

// Completion rebuilds the completion event of op, at op.CompleteIndex and
// op.Return: an info completion when its outcome is unknown (a caller that
// writes one chooses its time, as Return is then Infinity).
func Completion(op *Operation) Event {
	e := Event{Index: op.CompleteIndex, Time: op.Return, Process: op.Process, F: op.F, Resource: op.Resource, Type: TypeOK}
	switch {
	case op.Status == StatusUnknown:
		e.Type = TypeInfo
	case op.Status == StatusFailed:
		e.Type = TypeFail
	case op.IsWrite():
		e.Token, e.HasToken, e.Value, e.HasValue = op.Token, true, op.Value, true
		e.Outcome = Rejected
		if op.Status == StatusAccepted {
			e.Outcome = Accepted
		}
	default:
		e.Token, e.HasToken, e.Value, e.HasValue = op.Token, op.HasToken, op.Value, op.HasValue
	}
	return e
}
