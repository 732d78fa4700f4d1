package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/targets"
)

// worker is one client of the target. Its process id changes after an
// unknown outcome: the old operation may still be in flight, and a process
// has at most one operation in flight.
type worker struct {
	id   int
	proc int
	jobs int
}

// newProcess moves a client to a fresh process id, unique across workers:
// its operation with unknown outcome may still be in flight.
func (r *run) newProcess(proc *int) {
	*proc += r.cfg.Workers + 1 // the +1 leaves room for the final reader's ids
}

// noAnswer stands for the answer of a request the worker stopped waiting
// for.
func (r *run) noAnswer() error {
	return fmt.Errorf("no answer within %v, the operation timeout", r.cfg.OpTimeout)
}

// call runs op as a task of its own and waits for it at most OpTimeout. A
// request that has left the worker is not withdrawn when the worker stops
// waiting: it may still reach the target later, which is exactly an
// unknown outcome.
func (r *run) call(ctx context.Context, op func(context.Context)) bool {
	done := r.rt.NewGate()
	r.inflight.Go(func() {
		op(r.life)
		done.Open()
	})
	return done.Wait(ctx, r.cfg.OpTimeout)
}

// latency simulates one leg of a network round trip in deterministic mode.
func (r *run) latency(ctx context.Context) {
	if r.cfg.Deterministic {
		_ = r.rt.Sleep(ctx, time.Duration((0.2+1.6*r.rand.Float64())*float64(r.cfg.Latency)))
	}
}

func (r *run) write(ctx context.Context, w *worker, resource string, token uint64, value string) {
	if !r.take() {
		return
	}
	inv := histories.Event{Process: w.proc, Type: histories.TypeInvoke, F: histories.FWrite, Resource: resource,
		Token: token, HasToken: true, Value: value, HasValue: true}
	r.rec.Record(&inv)
	r.sent.observe(resource, token)
	var sentOut targets.Outcome
	var sentErr error
	msg := nemesis.Write{Worker: w.id, Process: w.proc, Resource: resource, Token: token, Value: value}
	answered := r.call(ctx, func(ctx context.Context) {
		sentOut, sentErr = r.deliver(ctx, msg)
	})
	// Unanswered, the request may still arrive; its answer is not ours
	// to read.
	var out targets.Outcome
	err := r.noAnswer()
	if answered {
		out, err = sentOut, sentErr
	}
	done := targets.WriteCompletion(inv, out, err)
	r.rec.Record(&done)
	r.count(&done)
	if done.Outcome == histories.Accepted {
		r.accepted.observe(resource, token)
	}
	if done.Type == histories.TypeInfo {
		r.newProcess(&w.proc)
	}
}

// deliver sends a write through the nemesis's deliverers to the target.
func (r *run) deliver(ctx context.Context, w nemesis.Write) (targets.Outcome, error) {
	send := func(ctx context.Context) (targets.Outcome, error) {
		r.latency(ctx)
		out, err := r.cfg.Target.Write(ctx, w.Resource, w.Token, w.Value)
		r.latency(ctx)
		return out, err
	}
	for i := len(r.deliverers) - 1; i >= 0; i-- {
		d, next := r.deliverers[i], send
		send = func(ctx context.Context) (targets.Outcome, error) { return d.Deliver(ctx, r, w, next) }
	}
	return send(ctx)
}

// read reads resource as one of the run's operations, within the
// operation limit.
func (r *run) read(ctx context.Context, proc *int, resource string) {
	if r.take() {
		r.readOp(ctx, proc, resource)
	}
}

// readOp reads resource as process *proc and returns the completion it
// recorded.
func (r *run) readOp(ctx context.Context, proc *int, resource string) histories.Event {
	inv := histories.Event{Process: *proc, Type: histories.TypeInvoke, F: histories.FRead, Resource: resource}
	r.rec.Record(&inv)
	var sentGot targets.Reading
	var sentErr error
	answered := r.call(ctx, func(ctx context.Context) {
		r.latency(ctx)
		sentGot, sentErr = r.cfg.Target.Read(ctx, resource)
		r.latency(ctx)
	})
	var got targets.Reading
	err := r.noAnswer()
	if answered {
		got, err = sentGot, sentErr
	}
	done := targets.ReadCompletion(inv, got, err)
	r.rec.Record(&done)
	r.count(&done)
	if done.Type == histories.TypeInfo {
		r.newProcess(proc)
	}
	return done
}

func (r *run) count(e *histories.Event) {
	r.progress.ops.Add(1)
	switch {
	case e.Type == histories.TypeInfo:
		r.progress.unknown.Add(1)
	case e.Outcome == histories.Accepted:
		r.progress.accepted.Add(1)
	case e.Outcome == histories.Rejected:
		r.progress.rejected.Add(1)
	}
}
