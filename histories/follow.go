package histories

// FollowSink receives what a Follower pairs, in history order. The
// operation passed is valid only during the call: the Follower reuses it.
type FollowSink interface {
	// Invoked: an operation began; its outcome is not known yet (Status
	// StatusUnknown, Return Infinity), and it may never be.
	Invoked(op *Operation)
	// Completed: the operation Invoked announced ended (its status and
	// return are final), or it is the state before the run, which
	// begins and ends at once (Initial).
	Completed(op *Operation)
	// Other: an event of another actor (lease, nemesis).
	Other(e *Event)
}

// Follower pairs a history whose end is not yet written: the Pairer's
// rules and messages, but it keeps only the operations in flight and hands
// every operation to a FollowSink the moment it begins and ends. Its
// memory is the operations in flight, the processes retired by an unknown
// outcome (which may never be used again, so they are remembered for the
// whole history, a few bytes each) and the resources written so far; not
// the history.
type Follower struct {
	// p holds the order, the header, the retired and in-flight processes
	// and the error summary, and words the errors; its ops stay empty.
	p    Pairer
	open map[int]*Operation // process → its operation in flight
	next int                // the ID of the next operation
	// written is each resource's first write's invocation index: a state
	// before the run stated after it is refused, as Pairer refuses it.
	written map[string]int64
	sink    FollowSink
}

// NewFollower returns a Follower that hands what it pairs to sink.
func NewFollower(sink FollowSink) *Follower {
	return &Follower{open: make(map[int]*Operation), written: make(map[string]int64), sink: sink}
}

// Add consumes the next event, read from line of its file (0 when not
// known); its errors are the Pairer's.
func (f *Follower) Add(e *Event, line int) error {
	if e.IsHeader() {
		return f.p.header(e)
	}
	if err := f.p.inOrder(e); err != nil {
		return err
	}
	switch {
	case e.Actor == ActorHarness && e.F == FInitial:
		return f.initialState(e)
	case !e.IsClient():
		f.sink.Other(e)
		return nil
	case e.Type == TypeInvoke:
		return f.invoke(e, line)
	}
	return f.complete(e)
}

// Format returns the format version of the history's header, 0 without one.
func (f *Follower) Format() int { return f.p.c.Format }

// Errors returns the first distinct errors the target answered with.
func (f *Follower) Errors() ErrorSummary { return f.p.c.Errors }

// Events returns the number of events read, the header not counted.
func (f *Follower) Events() int { return f.p.c.Events }

// InFlight returns the number of operations in flight.
func (f *Follower) InFlight() int { return len(f.open) }

// Finish ends the stream: the operations still in flight complete with an
// unknown outcome, as Pairer.Finish leaves them, in order of invocation.
func (f *Follower) Finish() {
	ops := make([]*Operation, 0, len(f.open))
	for _, op := range f.open {
		ops = append(ops, op)
	}
	sortByID(ops)
	for _, op := range ops {
		f.sink.Completed(op)
	}
	clear(f.open)
}

func sortByID(ops []*Operation) {
	for i := 1; i < len(ops); i++ { // few: the operations in flight
		for j := i; j > 0 && ops[j].ID < ops[j-1].ID; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

func (f *Follower) initialState(e *Event) error {
	if idx, twice := f.p.initial[e.Resource]; twice {
		return fieldErr("f", "a second initial state of %q (the first is at index %d)", e.Resource, idx)
	}
	if idx, ok := f.written[e.Resource]; ok {
		return fieldErr("f", "the initial state of %q comes after its write at index %d", e.Resource, idx)
	}
	if f.p.initial == nil {
		f.p.initial = make(map[string]int64)
	}
	f.p.initial[e.Resource] = e.Index
	op := initialOperation(e, f.next)
	f.next++
	f.sink.Completed(&op)
	return nil
}

func (f *Follower) invoke(e *Event, line int) error {
	if err := f.p.mayInvoke(e, func(int64) int64 { return f.open[e.Process].InvokeIndex }); err != nil {
		return err
	}
	op := new(Operation)
	*op = newOperation(e, f.next)
	f.next++
	if op.F == FWrite {
		if _, ok := f.written[op.Resource]; !ok {
			f.written[op.Resource] = op.InvokeIndex
		}
	}
	f.p.pending.set(e.Process, int64(op.ID))
	if line > 0 {
		f.p.invoked.set(e.Process, int64(line))
	}
	f.open[e.Process] = op
	f.sink.Invoked(op)
	return nil
}

func (f *Follower) complete(e *Event) error {
	op, ok := f.open[e.Process]
	if !ok {
		return fieldErr("process", "%d completes with %s at index %d but has no invocation in flight", e.Process, e.Type, e.Index)
	}
	if err := f.finish(e, op); err != nil {
		return err
	}
	delete(f.open, e.Process)
	f.sink.Completed(op)
	return nil
}
