package histories

// The Follower pairs into whole operations, which it hands on and then
// forgets; the pairer pairs into the History it keeps. The rules and
// their messages are the same (pairer.inOrder, pairer.mayInvoke,
// pairer.close, pairer.invocationAt and completedStatus serve both;
// sameAsInvocation below mirrors the pairer's for a whole operation),
// and FuzzFollowMatchesRead holds the two to it.

// initialOperation is the operation, numbered id, that an initial event
// states: an accepted write before every operation of the history.
func initialOperation(e *Event, id int) Operation {
	return Operation{
		ID: id, Process: -1, F: FWrite, Resource: e.Resource,
		Token: e.Token, HasToken: true, Value: e.Value, HasValue: true, Status: StatusAccepted,
		Call: InitialTime, Return: InitialTime, InvokeIndex: e.Index, CompleteIndex: e.Index, Initial: true,
	}
}

// newOperation is the operation, numbered id, that invocation e begins.
func newOperation(e *Event, id int) Operation {
	op := Operation{
		ID:            id,
		Process:       e.Process,
		F:             e.F,
		Resource:      e.Resource,
		Status:        StatusUnknown,
		Call:          e.Time,
		Return:        Infinity,
		InvokeIndex:   e.Index,
		CompleteIndex: -1,
		Trace:         e.Trace,
	}
	if e.F == FWrite {
		op.Token, op.HasToken = e.Token, true
		op.Value, op.HasValue = e.Value, true
	}
	return op
}

// finish completes op, the operation in flight of e's process, with e.
func (f *Follower) finish(e *Event, op *Operation) error {
	if err := f.sameAsInvocation(e, op); err != nil {
		return err
	}
	op.CompleteIndex = e.Index
	if !f.p.close(e, op.F) {
		return nil // Return stays at Infinity: the effect may happen at any later time.
	}
	op.Status = completedStatus(e, op.F == FWrite)
	if op.Status == StatusOK {
		op.Token, op.HasToken = e.Token, e.HasToken
		op.Value, op.HasValue = e.Value, e.HasValue
	}
	op.Return = e.Time
	return nil
}

// sameAsInvocation is pairer.sameAsInvocation for a whole operation.
func (f *Follower) sameAsInvocation(e *Event, op *Operation) error {
	switch {
	case e.F != op.F:
		return fieldErr("f", "completion %q does not match %q of %s", e.F, op.F, f.invocation(op))
	case e.Resource != op.Resource:
		return fieldErr("resource", "completion %s does not match %s of %s", quote(e.Resource), quote(op.Resource), f.invocation(op))
	case op.F != FWrite:
		return nil
	case e.HasToken && e.Token != op.Token:
		return fieldErr("token", "completion %d does not match %d of %s", e.Token, op.Token, f.invocation(op))
	case e.HasValue && e.Value != op.Value:
		return fieldErr("value", "completion %s does not match %s of %s", quote(e.Value), quote(op.Value), f.invocation(op))
	}
	return nil
}

// invocation names the invocation of op, pending.
func (f *Follower) invocation(op *Operation) string {
	return f.p.invocationAt(op.Process, op.InvokeIndex)
}
