package histories

import (
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// pairer turns a stream of events into operations, validating as it goes:
// indices strictly increase, time never goes backwards, a process has at
// most one operation in flight, every completion has an invocation, and a
// process whose operation ended with an unknown outcome is not used again
// (the worker must continue under a new process id, because the old
// operation may still be in flight), and a completion agrees with its
// invocation on every field both give (f, resource, and a write's token and
// value).
//
// Feed it with add in history order and call finish once. Read and Pair
// pair with it into a History; the Follower shares its rules and their
// messages (follow_pair.go).
type pairer struct {
	c         History
	initial   map[string]int64 // resource → index of its initial event
	pending   procTable        // process → position in c.Ops of its open operation
	invoked   procTable        // process → line of its open operation's invocation, when known
	retired   procTable        // process → index of its info completion
	lastIndex int64
	lastTime  int64
	anyEvent  bool
}

// add consumes the next event, read from line of a file (0 when
// unknown), so that an error about a completion can name the line of its
// invocation. Its errors say what is wrong without a location; the
// caller knows the line.
func (p *pairer) add(e *Event, line int) error {
	if e.isHeader() {
		return p.header(e)
	}
	if err := p.inOrder(e); err != nil {
		return err
	}
	if e.Actor == actorHarness && e.F == fInitial {
		return p.initialState(e)
	}
	if !e.isClient() {
		p.c.Others = append(p.c.Others, *e)
		return nil
	}
	if e.Type == TypeInvoke {
		return p.invoke(e, line)
	}
	return p.complete(e)
}

// inOrder takes the next event after the header: its index must increase
// and its time must not go backwards.
func (p *pairer) inOrder(e *Event) error {
	if p.anyEvent {
		if e.Index <= p.lastIndex {
			return fieldErr("index", "%d does not increase (previous event has %d)", e.Index, p.lastIndex)
		}
		if e.Time < p.lastTime {
			return fieldErr("time", "goes backwards: %d after %d (index %d)", e.Time, p.lastTime, p.lastIndex)
		}
	}
	p.anyEvent = true
	p.lastIndex, p.lastTime = e.Index, e.Time
	p.c.Events++
	return nil
}

// initialState turns the harness's statement of a resource's state before
// the run into an accepted write that precedes every operation. It must
// come before every write of the resource, and at most once: a state
// "before the run" stated after the run wrote is not one.
func (p *pairer) initialState(e *Event) error {
	if idx, twice := p.initial[e.Resource]; twice {
		return fieldErr("f", "a second initial state of %q (the first is at index %d)", e.Resource, idx)
	}
	if r, ok := p.c.resourceNumber(e.Resource); ok {
		for i := range p.c.Ops {
			if op := &p.c.Ops[i]; op.Resource == r && op.IsWrite() {
				return fieldErr("f", "the initial state of %q comes after its write at index %d", e.Resource, op.InvokeIndex)
			}
		}
	}
	if p.initial == nil {
		p.initial = make(map[string]int64)
	}
	p.initial[e.Resource] = e.Index
	p.grow()
	p.c.Ops = append(p.c.Ops, CompactOp{
		Process: p.c.process(-1), Resource: p.c.resources.number(e.Resource),
		Token: e.Token, Value: p.c.values.add(e.Value), Status: StatusAccepted,
		Call: InitialTime, Return: InitialTime, InvokeIndex: e.Index, flags: flagWrite | flagHasToken | flagInitial,
	})
	p.c.setComplete(len(p.c.Ops)-1, e.Index)
	return nil
}

func (p *pairer) invoke(e *Event, line int) error {
	if err := p.mayInvoke(e, func(at int64) int64 { return p.c.Ops[at].InvokeIndex }); err != nil {
		return err
	}
	op := CompactOp{
		Process:     p.c.process(e.Process),
		Resource:    p.c.resources.number(e.Resource),
		Status:      StatusUnknown,
		Call:        e.Time,
		Return:      Infinity,
		InvokeIndex: e.Index,
	}
	switch e.F {
	case FWrite:
		op.flags = flagWrite | flagHasToken
		op.Token, op.Value = e.Token, p.c.values.add(e.Value)
	case FRead:
	default:
		// The decoder refuses any other function of a client; an event
		// built in memory may still carry one.
		return fieldErr("f", "%q is not a client function (want %q or %q)", e.F, FWrite, FRead)
	}
	k := len(p.c.Ops)
	p.pending.set(e.Process, int64(k))
	if line > 0 {
		p.invoked.set(e.Process, int64(line))
	}
	p.grow()
	p.c.Ops = append(p.c.Ops, op)
	if e.Trace != "" {
		p.c.setTrace(k, e.Trace)
	}
	return nil
}

// mayInvoke refuses an invocation by a process that is busy or retired;
// invokedAt gives the invocation index of the operation at a position
// that pending holds.
func (p *pairer) mayInvoke(e *Event, invokedAt func(at int64) int64) error {
	if at, busy := p.pending.get(e.Process); busy {
		return fieldErr("process", "%d invoked index %d while its operation from index %d was still in flight",
			e.Process, e.Index, invokedAt(at))
	}
	if idx, gone := p.retired.get(e.Process); gone {
		return fieldErr("process", "%d reused after its unknown outcome at index %d; continue under a new process id", e.Process, idx)
	}
	return nil
}

// grow makes room for one more operation. It doubles, rather than
// append's 1.25 for large slices: a history of a million operations would
// otherwise be copied five times over while it is read. It starts small,
// as most histories a fuzz target reads hold a few operations.
func (p *pairer) grow() {
	if len(p.c.Ops) == cap(p.c.Ops) {
		p.c.Ops = slices.Grow(p.c.Ops, max(len(p.c.Ops), 64))
	}
}

func (p *pairer) complete(e *Event) error {
	at, ok := p.pending.get(e.Process)
	if !ok {
		return fieldErr("process", "%d completes with %s at index %d but has no invocation in flight", e.Process, e.Type, e.Index)
	}
	op := &p.c.Ops[at]
	if err := p.sameAsInvocation(e, op); err != nil {
		return err
	}
	p.c.setComplete(int(at), e.Index)
	if !p.close(e, op.f()) {
		return nil // Return stays at Infinity: the effect may happen at any later time.
	}
	op.Status = completedStatus(e, op.IsWrite())
	if op.Status == StatusOK {
		op.Token = e.Token
		if e.HasToken {
			op.flags |= flagHasToken
		}
		if e.HasValue {
			op.Value = p.c.values.add(e.Value)
		}
	}
	op.Return = e.Time
	return nil
}

// close ends the flight of e's process's operation, of function f, and
// notes the error e carries; it reports whether e answered. An info
// completion (an unknown outcome) does not: its process is retired.
func (p *pairer) close(e *Event, f string) bool {
	p.pending.remove(e.Process)
	p.invoked.remove(e.Process)
	if e.Error != "" {
		p.c.Errors.add(f, e.Error)
	}
	if e.Type == TypeInfo {
		p.retired.set(e.Process, e.Index)
		return false
	}
	return true
}

// completedStatus is the status an answering completion e (fail or ok)
// gives its operation, a write or a read; the pairer and the Follower
// share it, and close, so that they judge completions alike.
func completedStatus(e *Event, write bool) Status {
	switch {
	case e.Type == TypeFail:
		return StatusFailed
	case e.Type != TypeOK:
		return StatusUnknown // no other type answers; the decoder refuses them
	case !write:
		return StatusOK
	case e.Outcome == Accepted:
		return StatusAccepted
	}
	return StatusRejected
}

// sameAsInvocation checks what a completion repeats of its invocation op:
// the function and resource, and a write's token and value when the
// completion carries them. A completion that says otherwise records a
// different operation than its invocation, and no reading of it is safe.
func (p *pairer) sameAsInvocation(e *Event, op *CompactOp) error {
	switch {
	case e.F != op.f():
		return fieldErr("f", "completion %q does not match %q of %s", e.F, op.f(), p.invocation(op))
	case e.Resource != p.c.ResourceName(op.Resource):
		return fieldErr("resource", "completion %s does not match %s of %s", quote(e.Resource), quote(p.c.ResourceName(op.Resource)), p.invocation(op))
	case !op.IsWrite():
		return nil
	case e.HasToken && e.Token != op.Token:
		return fieldErr("token", "completion %d does not match %d of %s", e.Token, op.Token, p.invocation(op))
	case e.HasValue && e.Value != p.c.Value(op):
		return fieldErr("value", "completion %s does not match %s of %s", quote(e.Value), quote(p.c.Value(op)), p.invocation(op))
	}
	return nil
}

// invocation names the invocation of op, pending.
func (p *pairer) invocation(op *CompactOp) string {
	return p.invocationAt(p.c.processes[op.Process], op.InvokeIndex)
}

// invocationAt names the pending invocation of process at index, by its
// index and, when known, its line; the Follower names its own with it.
func (p *pairer) invocationAt(process int, index int64) string {
	if line, ok := p.invoked.get(process); ok {
		return fmt.Sprintf("the invocation at index %d (line %d)", index, line)
	}
	return fmt.Sprintf("the invocation at index %d", index)
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
func (p *pairer) reserve(n int) {
	if n > cap(p.c.Ops) {
		p.c.Ops = slices.Grow(p.c.Ops, n-len(p.c.Ops))
		p.c.values.refs = slices.Grow(p.c.values.refs, n-len(p.c.values.refs))
	}
}

// finish ends the stream and returns the history. Operations still in
// flight keep an unknown outcome, as if they had completed with info.
func (p *pairer) finish() *History {
	c := p.c
	return &c
}

// Pair pairs events that are already in memory.
func Pair(events []Event) (*History, error) {
	var p pairer
	for i := range events {
		if err := p.add(&events[i], 0); err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
	}
	return p.finish(), nil
}
