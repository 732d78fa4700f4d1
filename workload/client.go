package workload

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
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

// value is the value of the worker's next job, unique in the run:
// PREFIX + "w" + worker + "-j" + job, worded without fmt, whose Sprintf
// showed in the profile of BenchmarkHarness/deterministic.
func (w *worker) value(prefix string) string {
	b := make([]byte, 0, 48)
	b = append(b, prefix...)
	b = append(b, 'w')
	b = strconv.AppendInt(b, int64(w.id), 10)
	b = append(b, "-j"...)
	b = strconv.AppendInt(b, int64(w.jobs), 10)
	return string(b)
}

// newProcess moves a client to a fresh process id, unique across workers:
// its operation with unknown outcome may still be in flight.
func (p *Pool) newProcess(proc *int) {
	*proc += p.cfg.Workers + 1 // the +1 leaves room for the final reader's ids
}

// noAnswer stands for the answer of a request the worker stopped waiting
// for.
func (p *Pool) noAnswer() error {
	return fmt.Errorf("no answer within %v, the operation timeout", p.cfg.OpTimeout)
}

// direct says whether a worker may send its requests itself rather than
// as tasks of their own (call): only when no request can be on its way
// when the worker would give up on it. The receiver answers at once, no
// fault acts on requests, no latency is simulated; and the runtime leaves
// the interleaving to the Go scheduler: under one that fixes it (Sim)
// each request's steps are part of what a seed explores.
func direct(cfg Config, run Run) bool {
	im, ok := run.Target.(targets.Immediate)
	return ok && im.Immediate() && len(run.Deliverers) == 0 && cfg.Latency == 0 && !sched.Ordered(run.Runtime)
}

// call runs op as a task of its own and waits for it at most OpTimeout. A
// request that has left the worker is not withdrawn when the worker stops
// waiting: it may still reach the target later, which is exactly an
// unknown outcome. A request that cannot wait (direct) runs on the
// worker's own task, which saves a goroutine, a gate and a timer per
// operation (BenchmarkHarness/realtime); it is answered unless the run
// is being stopped.
func (p *Pool) call(ctx context.Context, op func(context.Context)) bool {
	if p.direct {
		op(p.Life)
		return ctx.Err() == nil
	}
	done := p.Runtime.NewGate()
	p.inflight.Go(func() {
		op(p.Life)
		done.Open()
	})
	return done.Wait(ctx, p.cfg.OpTimeout)
}

// latency simulates one leg of a network round trip, in a simulated run.
func (p *Pool) latency(ctx context.Context) {
	if p.cfg.Latency > 0 {
		_ = p.Runtime.Sleep(ctx, time.Duration((0.2+1.6*p.Rand.Float64())*float64(p.cfg.Latency)))
	}
}

// write sends one write of the job's, with the lease's token, through
// the nemesis, and records it; it reports whether it was sent. A
// strategy that does not fence sends it without the token, and the
// history still records the lease's token on its invocation (see
// Strategy). owed says the nemesis held the worker at its pause point
// for this write, which the operation bound then does not refuse (holds).
func (p *Pool) write(ctx context.Context, w *worker, resource string, token uint64, value string, owed bool) bool {
	if !p.take(owed) {
		return false
	}
	inv := histories.Event{Process: w.proc, Type: histories.TypeInvoke, F: histories.FWrite, Resource: resource,
		Token: token, HasToken: true, Value: value, HasValue: true}
	trace := p.traceOf(&inv)
	p.Recorder.Record(&inv)
	p.sent.observe(resource, token)
	var sentOut histories.Outcome
	var sentErr error
	msg := nemesis.Write{Worker: w.id, Process: w.proc, Resource: resource, Token: token, Value: value}
	answered := p.call(ctx, func(ctx context.Context) {
		sentOut, sentErr = p.deliver(trace.into(ctx), msg)
	})
	// Unanswered, the request may still arrive; its answer is not ours
	// to read.
	var out histories.Outcome
	var err error
	if answered {
		out, err = sentOut, sentErr
	} else {
		err = p.noAnswer() // made only here: it costs three allocations
	}
	done := targets.WriteCompletion(inv, out, err)
	p.Recorder.Record(&done)
	p.counts.count(&done)
	if done.Outcome == histories.Accepted {
		p.accepted.observe(resource, token)
	}
	if done.Type == histories.TypeInfo {
		p.newProcess(&w.proc)
	}
	return true
}

// deliver sends a write through the nemesis's deliverers to the target.
func (p *Pool) deliver(ctx context.Context, w nemesis.Write) (histories.Outcome, error) {
	send := func(ctx context.Context) (histories.Outcome, error) {
		if p.tokenless == nil && p.cfg.MaxToken != 0 && w.Token > p.cfg.MaxToken {
			// A token the receiver cannot store: sending it would test
			// the receiver outside what it was built for.
			return 0, targets.OutsideDomain(w.Token, p.cfg.MaxToken)
		}
		p.latency(ctx)
		var out histories.Outcome
		var err error
		if p.tokenless != nil {
			out, err = p.tokenless.WriteWithoutToken(ctx, w.Resource, w.Value)
		} else {
			out, err = p.Target.Write(ctx, w.Resource, w.Token, w.Value)
		}
		p.latency(ctx)
		return out, err
	}
	for i := len(p.Deliverers) - 1; i >= 0; i-- {
		d, next := p.Deliverers[i], send
		send = func(ctx context.Context) (histories.Outcome, error) { return d.Deliver(ctx, p.Env, w, next) }
	}
	return send(ctx)
}

// read reads resource as one of the run's operations, within the
// operation limit.
func (p *Pool) read(ctx context.Context, proc *int, resource string) {
	if p.take(false) {
		p.ReadOnce(ctx, proc, resource)
	}
}

// ReadOnce reads resource as process *proc, outside the operation limit,
// and returns the completion it recorded: the run reads every resource
// this way after the workers end. When the strategy sends no tokens, the
// token the receiver reports is left out of the record: the receiver was
// never told the writers' tokens (see Strategy).
func (p *Pool) ReadOnce(ctx context.Context, proc *int, resource string) histories.Event {
	return p.readOnce(ctx, proc, resource, p.cfg.Strategy.Fences())
}

// Observe is ReadOnce before any worker wrote, keeping the token the
// receiver reports whatever the strategy: the run observes every resource
// this way before the workers start, and that token is the state it
// starts from.
func (p *Pool) Observe(ctx context.Context, proc *int, resource string) histories.Event {
	return p.readOnce(ctx, proc, resource, true)
}

func (p *Pool) readOnce(ctx context.Context, proc *int, resource string, keepToken bool) histories.Event {
	inv := histories.Event{Process: *proc, Type: histories.TypeInvoke, F: histories.FRead, Resource: resource}
	trace := p.traceOf(&inv)
	p.Recorder.Record(&inv)
	var sentGot targets.Reading
	var sentErr error
	answered := p.call(ctx, func(ctx context.Context) {
		p.latency(ctx)
		sentGot, sentErr = p.Target.Read(trace.into(ctx), resource)
		p.latency(ctx)
	})
	var got targets.Reading
	var err error
	if answered {
		got, err = sentGot, sentErr
	} else {
		err = p.noAnswer()
	}
	if !keepToken {
		got.Token, got.HasToken = 0, false
	}
	done := targets.ReadCompletion(inv, got, err)
	p.Recorder.Record(&done)
	p.counts.count(&done)
	if done.Type == histories.TypeInfo {
		p.newProcess(proc)
	}
	return done
}
