package histories

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
