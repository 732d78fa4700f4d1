package histories

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Pairer turns a stream of events into operations, validating as it goes:
// indices strictly increase, time never goes backwards, a process has at
// most one operation in flight, every completion has an invocation, and a
// process whose operation ended with an unknown outcome is not used again
// (the worker must continue under a new process id, because the old
// operation may still be in flight), and a completion agrees with its
// invocation on every field both give (f, resource, and a write's token and
// value).
//
// Feed it with Add in history order and call Finish once.
type Pairer struct {
	ops      []Operation
	others   []Event
	initial  map[string]int64 // resource → index of its initial event
	errors   ErrorSummary
	pending  procTable // process → position in ops of its open operation
	invoked  procTable // process → line of its open operation's invocation, when known
	retired  procTable // process → index of its info completion
	events   int
	format   int // the header's, 0 without one
	last     Event
	anyEvent bool
}

// NewPairer returns an empty Pairer.
func NewPairer() *Pairer {
	return &Pairer{}
}

// Add consumes the next event. Its errors say what is wrong without a
// location; the caller knows the line.
func (p *Pairer) Add(e *Event) error { return p.add(e, 0) }

// add is Add for an event read from line of a file (0 when unknown), so
// that an error about a completion can name the line of its invocation.
func (p *Pairer) add(e *Event, line int) error {
	if e.IsHeader() {
		return p.header(e)
	}
	if err := p.inOrder(e); err != nil {
		return err
	}
	if e.Actor == ActorHarness && e.F == FInitial {
		return p.initialState(e)
	}
	if !e.IsClient() {
		p.others = append(p.others, *e)
		return nil
	}
	if e.Type == TypeInvoke {
		return p.invoke(e, line)
	}
	return p.complete(e)
}

// inOrder takes the next event after the header: its index must increase
// and its time must not go backwards.
func (p *Pairer) inOrder(e *Event) error {
	if p.anyEvent {
		if e.Index <= p.last.Index {
			return fieldErr("index", "%d does not increase (previous event has %d)", e.Index, p.last.Index)
		}
		if e.Time < p.last.Time {
			return fieldErr("time", "goes backwards: %d after %d (index %d)", e.Time, p.last.Time, p.last.Index)
		}
	}
	p.anyEvent = true
	p.last = *e
	p.events++
	return nil
}

// initialState turns the harness's statement of a resource's state before
// the run into an accepted write that precedes every operation. It must
// come before every write of the resource, and at most once: a state
// "before the run" stated after the run wrote is not one.
func (p *Pairer) initialState(e *Event) error {
	if idx, twice := p.initial[e.Resource]; twice {
		return fieldErr("f", "a second initial state of %q (the first is at index %d)", e.Resource, idx)
	}
	for i := range p.ops {
		if op := &p.ops[i]; op.Resource == e.Resource && op.IsWrite() {
			return fieldErr("f", "the initial state of %q comes after its write at index %d", e.Resource, op.InvokeIndex)
		}
	}
	if p.initial == nil {
		p.initial = make(map[string]int64)
	}
	p.initial[e.Resource] = e.Index
	p.ops = append(p.ops, initialOperation(e, len(p.ops)))
	return nil
}

// initialOperation is the operation, numbered id, that an initial event
// states: an accepted write before every operation of the history.
func initialOperation(e *Event, id int) Operation {
	return Operation{
		ID: id, Process: -1, F: FWrite, Resource: e.Resource,
		Token: e.Token, HasToken: true, Value: e.Value, HasValue: true, Status: StatusAccepted,
		Call: InitialTime, Return: InitialTime, InvokeIndex: e.Index, CompleteIndex: e.Index, Initial: true,
	}
}

func (p *Pairer) invoke(e *Event, line int) error {
	if err := p.mayInvoke(e, func(at int64) int64 { return p.ops[at].InvokeIndex }); err != nil {
		return err
	}
	op := newOperation(e, len(p.ops))
	p.pending.set(e.Process, int64(len(p.ops)))
	if line > 0 {
		p.invoked.set(e.Process, int64(line))
	}
	if len(p.ops) == cap(p.ops) {
		// Double, rather than append's 1.25 for large slices: a history
		// of a million operations would otherwise be copied five times
		// over while it is read. Start small, as most histories a fuzz
		// target reads hold a few operations.
		p.ops = slices.Grow(p.ops, max(len(p.ops), 64))
	}
	p.ops = append(p.ops, op)
	return nil
}

// mayInvoke refuses an invocation by a process that is busy or retired;
// invokedAt gives the invocation index of the operation at a position
// that pending holds.
func (p *Pairer) mayInvoke(e *Event, invokedAt func(at int64) int64) error {
	if at, busy := p.pending.get(e.Process); busy {
		return fieldErr("process", "%d invoked index %d while its operation from index %d was still in flight",
			e.Process, e.Index, invokedAt(at))
	}
	if idx, gone := p.retired.get(e.Process); gone {
		return fieldErr("process", "%d reused after its unknown outcome at index %d; continue under a new process id", e.Process, idx)
	}
	return nil
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

func (p *Pairer) complete(e *Event) error {
	at, ok := p.pending.get(e.Process)
	if !ok {
		return fieldErr("process", "%d completes with %s at index %d but has no invocation in flight", e.Process, e.Type, e.Index)
	}
	return p.finish(e, &p.ops[at])
}

// finish completes op, the operation in flight of e's process, with e.
func (p *Pairer) finish(e *Event, op *Operation) error {
	if err := p.sameAsInvocation(e, op); err != nil {
		return err
	}
	p.pending.remove(e.Process)
	p.invoked.remove(e.Process)
	op.CompleteIndex = e.Index
	if e.Error != "" {
		p.errors.add(op, e.Error)
	}
	switch e.Type {
	case TypeInfo:
		// Return stays at Infinity: the effect may happen at any later time.
		p.retired.set(e.Process, e.Index)
		return nil
	case TypeFail:
		op.Status = StatusFailed
	case TypeOK:
		if op.F == FWrite {
			op.Status = StatusRejected
			if e.Outcome == Accepted {
				op.Status = StatusAccepted
			}
		} else {
			op.Status = StatusOK
			op.Token, op.HasToken = e.Token, e.HasToken
			op.Value, op.HasValue = e.Value, e.HasValue
		}
	}
	op.Return = e.Time
	return nil
}

// sameAsInvocation checks what a completion repeats of its invocation op:
// the function and resource, and a write's token and value when the
// completion carries them. A completion that says otherwise records a
// different operation than its invocation, and no reading of it is safe.
func (p *Pairer) sameAsInvocation(e *Event, op *Operation) error {
	switch {
	case e.F != op.F:
		return fieldErr("f", "completion %q does not match %q of %s", e.F, op.F, p.invocation(op))
	case e.Resource != op.Resource:
		return fieldErr("resource", "completion %s does not match %s of %s", quote(e.Resource), quote(op.Resource), p.invocation(op))
	case op.F != FWrite:
		return nil
	case e.HasToken && e.Token != op.Token:
		return fieldErr("token", "completion %d does not match %d of %s", e.Token, op.Token, p.invocation(op))
	case e.HasValue && e.Value != op.Value:
		return fieldErr("value", "completion %s does not match %s of %s", quote(e.Value), quote(op.Value), p.invocation(op))
	}
	return nil
}

// invocation names the invocation of op, pending, by its index and, when
// known, its line.
func (p *Pairer) invocation(op *Operation) string {
	if line, ok := p.invoked.get(op.Process); ok {
		return fmt.Sprintf("the invocation at index %d (line %d)", op.InvokeIndex, line)
	}
	return fmt.Sprintf("the invocation at index %d", op.InvokeIndex)
}

// maxQuoted bounds a value quoted in an error: values can be long, and the
// message is for a person.
const maxQuoted = 64

// quote is s in Go syntax, its middle cut when it is long.
func quote(s string) string {
	if len(s) <= maxQuoted {
		return strconv.Quote(s)
	}
	cut := maxQuoted / 2
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	end := len(s) - maxQuoted/2
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	return strconv.Quote(s[:cut]) + "…" + strconv.Quote(s[end:])
}

// reserve makes room for n operations in all, when it knows how many to
// expect.
func (p *Pairer) reserve(n int) {
	if n > cap(p.ops) {
		p.ops = slices.Grow(p.ops, n-len(p.ops))
	}
}

// Finish ends the stream. Operations still in flight keep an unknown
// outcome, as if they had completed with info.
func (p *Pairer) Finish() *History {
	return &History{Operations: p.ops, Others: p.others, Events: p.events, Errors: p.errors, Format: p.format}
}

// History is a paired history: the client operations in order of
// invocation, and the events of other actors.
type History struct {
	Operations []Operation
	Others     []Event // lease and nemesis events, in history order
	Events     int     // number of events read, of every actor, the header not counted
	// Format is the version of the format the history's header names
	// (FormatVersion), 0 for a history without a header.
	Format int
	// Truncated is set when the file ended in a partial line (a killed
	// writer) that was dropped.
	Truncated bool
	// Errors are the first distinct errors the target answered with,
	// from the error fields of fail and info completions.
	Errors ErrorSummary
}

// Pair pairs events that are already in memory.
func Pair(events []Event) (*History, error) {
	p := NewPairer()
	for i := range events {
		if err := p.Add(&events[i]); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
	}
	return p.Finish(), nil
}
