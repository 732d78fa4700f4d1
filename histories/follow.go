package histories

import (
	"context"
	"errors"
	"fmt"
	"io"
)

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

// Follower pairs a history whose end is not yet written: a history read
// as it is written (Follow), or handed over event by event as it is
// recorded (Add). It is the one way to pair a history without holding
// it. Its rules and messages are Read's, but it keeps only the
// operations in flight and hands every operation to a FollowSink the
// moment it begins and ends. Its memory is the operations in flight, the
// processes retired by an unknown outcome (which may never be used
// again, so they are remembered for the whole history, a few bytes each)
// and the resources; not the history.
type Follower struct {
	// p holds the order, the header, the retired and in-flight processes
	// and the error summary, and words the errors; its ops stay empty.
	p    pairer
	open map[int]*followed // process → its operation in flight
	next int               // the ID of the next operation
	// written is each resource's first write's invocation index: a state
	// before the run stated after it is refused, as Read refuses it.
	written map[string]int64
	sink    FollowSink
	// tally counts what ended, for Finish; resources numbers the
	// resources for it.
	tally     tally
	resources names
}

// followed is an operation in flight and the number of its resource.
type followed struct {
	Operation
	resource uint32
}

// NewFollower returns a Follower that hands what it pairs to sink.
func NewFollower(sink FollowSink) *Follower {
	return &Follower{open: make(map[int]*followed), written: make(map[string]int64), sink: sink}
}

// Add consumes the next event of a history recorded in memory; its
// errors are Read's, without a line.
func (f *Follower) Add(e *Event) error { return f.add(e, 0) }

// Follow consumes the events r holds until it ends, as they are written;
// name names r in errors, which say where, as name:line: what is wrong.
// It reports whether the last line was cut short (the writer was probably
// killed), which is then left out, as Read leaves it out. A cancelled ctx
// stops it between two events.
func (f *Follower) Follow(ctx context.Context, r io.Reader, name string) (truncated bool, err error) {
	rd := newReader(r, name)
	var e Event
	for {
		err := rd.next(&e)
		if errors.Is(err, io.EOF) {
			return rd.partial(), nil
		}
		if err != nil {
			return false, err
		}
		if err := f.add(&e, rd.line()); err != nil {
			return false, &lineError{file: name, line: rd.line(), err: err}
		}
		if err := ctx.Err(); err != nil {
			return false, fmt.Errorf("follow %s: %w", name, err)
		}
	}
}

// add is Add for an event read from line of its file (0 when not known).
func (f *Follower) add(e *Event, line int) error {
	if e.isHeader() {
		return f.p.header(e)
	}
	if err := f.p.inOrder(e); err != nil {
		return err
	}
	switch {
	case e.Actor == actorHarness && e.F == fInitial:
		return f.initialState(e)
	case !e.isClient():
		f.sink.Other(e)
		return nil
	case e.Type == TypeInvoke:
		return f.invoke(e, line)
	}
	return f.complete(e)
}

// Finish ends the stream: the operations still in flight complete with an
// unknown outcome, as Read leaves them, in order of invocation. It
// returns what History.Count and History.Evidence say of the history
// the Follower paired, which it never held.
func (f *Follower) Finish() (Counts, Evidence) {
	ops := make([]*followed, 0, len(f.open))
	for _, op := range f.open {
		ops = append(ops, op)
	}
	sortByID(ops)
	for _, op := range ops {
		f.completed(op)
	}
	clear(f.open)
	return f.tally.counts(), f.tally.evidence(func(r uint32) string { return f.resources.list[r] }, f.p.c.Errors)
}

func sortByID(ops []*followed) {
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
	f.sink.Completed(&op) // the state before the run: no operation to count
	return nil
}

func (f *Follower) invoke(e *Event, line int) error {
	if err := f.p.mayInvoke(e, func(int64) int64 { return f.open[e.Process].InvokeIndex }); err != nil {
		return err
	}
	op := &followed{Operation: newOperation(e, f.next), resource: f.resources.number(e.Resource)}
	f.next++
	f.tally.note(op.resource)
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
	f.sink.Invoked(&op.Operation)
	return nil
}

func (f *Follower) complete(e *Event) error {
	op, ok := f.open[e.Process]
	if !ok {
		return fieldErr("process", "%d completes with %s at index %d but has no invocation in flight", e.Process, e.Type, e.Index)
	}
	if err := f.finish(e, &op.Operation); err != nil {
		return err
	}
	delete(f.open, e.Process)
	f.completed(op)
	return nil
}

// completed counts op, which ended, and hands it to the sink.
func (f *Follower) completed(op *followed) {
	f.tally.add(op.resource, op.Process, op.F == FWrite, op.Status, op.Call, op.Return)
	f.sink.Completed(&op.Operation)
}
