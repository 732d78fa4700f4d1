package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
)

// violationStop is run --stop-on-violation: it sees every event as the
// recorder writes it (a histories.Observer, before the metrics' when
// both are asked for), judges them with the stage behind check --follow
// on a goroutine of its own, and cancels the run at the first
// violation. The run then ends as an interrupted one does: its history
// closed, checked again whole and stored, its verdict violated.
//
// Observe runs under the recorder's lock, on every event's path: it only
// queues the event.
type violationStop struct {
	next   histories.Observer
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	queue  []histories.Event
	wake   chan struct{}
	done   chan struct{}
	stop   chan struct{}
	reason string // set once, before done closes
}

// stopOnViolation sets cfg.Observer to a violationStop that cancels the
// context it returns; stop ends the judging and returns why the run was
// stopped, "" when it was not.
func stopOnViolation(ctx context.Context, cfg *harness.Config) (context.Context, func() string) {
	ctx, cancel := context.WithCancelCause(ctx)
	v := &violationStop{next: cfg.Observer, cancel: cancel, wake: make(chan struct{}, 1), done: make(chan struct{}), stop: make(chan struct{})}
	cfg.Observer = v
	so := check.DefaultStreamOptions()
	so.Policy = cfg.Policy
	go v.judge(so)
	return ctx, func() string {
		close(v.stop)
		<-v.done
		cancel(nil)
		return v.reason
	}
}

// Observe queues e for judging.
func (v *violationStop) Observe(e histories.Event) {
	if v.next != nil {
		v.next.Observe(e)
	}
	v.mu.Lock()
	v.queue = append(v.queue, e)
	v.mu.Unlock()
	select {
	case v.wake <- struct{}{}:
	default:
	}
}

// judge pairs and judges the queued events until stop, or the first
// violation.
func (v *violationStop) judge(so check.StreamOptions) {
	defer close(v.done)
	stream := check.NewStream(context.Background(), so, func(sv check.StreamViolation) {
		if v.reason == "" {
			v.reason = fmt.Sprintf("a violation on %s, found after %d events (--stop-on-violation)", sv.Resource, sv.Events)
			v.cancel(errors.New(v.reason))
		}
	})
	follower := histories.NewFollower(stream)
	var batch []histories.Event
	last := time.Now()
	for v.reason == "" {
		select {
		case <-v.stop:
			return
		case <-v.wake:
		case <-time.After(detectEvery):
		}
		v.mu.Lock()
		batch, v.queue = v.queue, batch[:0]
		v.mu.Unlock()
		for i := range batch {
			if err := follower.Add(&batch[i], 0); err != nil {
				return // the recorder wrote what the reader refuses: the whole check will say so
			}
		}
		if len(batch) == 0 || time.Since(last) >= detectEvery {
			stream.Detect()
			last = time.Now()
		}
	}
}
