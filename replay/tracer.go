package replay

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// tracer records a scripted timeline with a virtual clock: every event
// gets the next index and a time derived from the step it belongs to, so
// the trace is the same bytes on every run. There are no sleeps and no
// timers; event order is the experimental input.
type tracer struct {
	events []histories.Event
	step   int
	tick   int64
}

const stepNanos = 1000 // one step of the timeline lasts 1 µs of virtual time

func (tr *tracer) at(step int) {
	tr.step, tr.tick = step, 0
}

func (tr *tracer) emit(e histories.Event) {
	e.Index = histories.FirstIndex + int64(len(tr.events)) // after the header, which Write adds
	e.Time = int64(tr.step)*stepNanos + tr.tick
	tr.tick += 100
	tr.events = append(tr.events, e)
}

func (tr *tracer) lease(f string, resource string, token uint64, holder int, detail string) {
	tr.emit(histories.Event{Process: -1, Actor: histories.ActorLease, F: f, Resource: resource,
		Token: token, HasToken: true, Holder: holder, HasHolder: true, Detail: detail})
}

func (tr *tracer) nemesis(f, fault, detail string) {
	tr.emit(histories.Event{Process: -1, Actor: histories.ActorNemesis, F: f, Fault: fault, Detail: detail})
}

// invokeWrite records the invocation only, for writes whose delivery the
// script controls.
func (tr *tracer) invokeWrite(process int, resource string, token uint64, value string) {
	tr.emit(writeInvocation(process, resource, token, value))
}

// deliverWrite sends the write to the target and records its completion.
func (tr *tracer) deliverWrite(ctx context.Context, t targets.Target, process int, resource string, token uint64, value string) (histories.Outcome, error) {
	out, err := t.Write(ctx, resource, token, value)
	tr.emit(targets.WriteCompletion(writeInvocation(process, resource, token, value), out, err))
	if err != nil {
		return 0, fmt.Errorf("write token %d to %s: %w", token, resource, err)
	}
	return out, nil
}

func (tr *tracer) write(ctx context.Context, t targets.Target, process int, resource string, token uint64, value string) (histories.Outcome, error) {
	tr.invokeWrite(process, resource, token, value)
	return tr.deliverWrite(ctx, t, process, resource, token, value)
}

func (tr *tracer) read(ctx context.Context, t targets.Target, process int, resource string) (targets.Reading, error) {
	inv := histories.Event{Process: process, Type: histories.TypeInvoke, F: histories.FRead, Resource: resource}
	tr.emit(inv)
	r, err := t.Read(ctx, resource)
	tr.emit(targets.ReadCompletion(inv, r, err))
	if err != nil {
		return r, fmt.Errorf("read %s: %w", resource, err)
	}
	return r, nil
}

func writeInvocation(process int, resource string, token uint64, value string) histories.Event {
	return histories.Event{Process: process, Type: histories.TypeInvoke, F: histories.FWrite,
		Resource: resource, Token: token, HasToken: true, Value: value, HasValue: true}
}
