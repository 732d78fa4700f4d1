package harness

import (
	"context"
	"errors"
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

// newProcess moves w to a fresh process id, unique across workers.
func (r *run) newProcess(w *worker) {
	w.proc += r.cfg.Workers + 1 // the +1 leaves room for the final reader's ids
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
	var out targets.Outcome
	var err error
	msg := nemesis.Write{Worker: w.id, Process: w.proc, Resource: resource, Token: token, Value: value}
	answered := r.call(ctx, func(ctx context.Context) {
		out, err = r.deliver(ctx, msg)
	})
	done := inv
	done.Outcome = histories.OutcomeNone
	switch {
	case !answered:
		done.Type = histories.TypeInfo
	case errors.Is(err, targets.ErrDefinitelyNotApplied):
		done.Type = histories.TypeFail
	case err != nil:
		done.Type = histories.TypeInfo
	default:
		done.Type = histories.TypeOK
		done.Outcome = histories.Rejected
		if out == targets.Accepted {
			done.Outcome = histories.Accepted
		}
	}
	r.rec.Record(&done)
	r.count(&done)
	if done.Outcome == histories.Accepted {
		r.accepted.observe(resource, token)
	}
	if done.Type == histories.TypeInfo {
		r.newProcess(w)
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

func (r *run) read(ctx context.Context, proc *int, resource string) {
	if !r.take() {
		return
	}
	inv := histories.Event{Process: *proc, Type: histories.TypeInvoke, F: histories.FRead, Resource: resource}
	r.rec.Record(&inv)
	var got targets.Reading
	var err error
	answered := r.call(ctx, func(ctx context.Context) {
		r.latency(ctx)
		got, err = r.cfg.Target.Read(ctx, resource)
		r.latency(ctx)
	})
	done := inv
	switch {
	case !answered || err != nil:
		done.Type = histories.TypeInfo
	default:
		done.Type = histories.TypeOK
		done.Value, done.HasValue = got.Value, got.Found
		done.Token, done.HasToken = got.Token, got.HasToken
	}
	r.rec.Record(&done)
	r.count(&done)
	if done.Type == histories.TypeInfo {
		*proc += r.cfg.Workers + 1
	}
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
