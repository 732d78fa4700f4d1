package judge

import (
	"context"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
)

// detectEvery is how often a history judged as it is written has its
// windows judged while events keep coming: a violation is reported
// within about that long of its event.
const detectEvery = 400 * time.Millisecond

// A Watcher judges a history as it is recorded, with the stage behind a
// followed check (check.Stream), and calls found once, at the first
// violation, so that a run can stop there. It is a histories.Observer:
// the recorder hands it every event, under the recorder's lock, on every
// worker's path, so Observe only queues the event; a goroutine of the
// Watcher's own pairs and judges.
//
// It judges in passing: the violation it finds is a violation of the
// whole history too (windows are cut only where nothing still to come can
// change their verdict), but a run it stops is judged again, whole, by
// Judge, and that judgement is the run's.
type Watcher struct {
	next  histories.Observer
	found func(resource string, events int)
	mu    sync.Mutex
	queue []histories.Event
	wake  chan struct{}
	done  chan struct{}
	stop  chan struct{}
	once  sync.Once
}

// Watch starts a Watcher that judges with o's check options and hands
// every event on to next first (nil: none).
func Watch(o Options, next histories.Observer, found func(resource string, events int)) *Watcher {
	w := &Watcher{next: next, found: found, wake: make(chan struct{}, 1), done: make(chan struct{}), stop: make(chan struct{})}
	so := check.DefaultStreamOptions()
	so.Options = o.Check
	go w.judge(so)
	return w
}

// Observe queues e for judging.
func (w *Watcher) Observe(e histories.Event) {
	if w.next != nil {
		w.next.Observe(e)
	}
	w.mu.Lock()
	w.queue = append(w.queue, e)
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Stop ends the judging and waits for it; found is not called after.
func (w *Watcher) Stop() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

// judge pairs and judges the queued events until Stop, or the first
// violation.
func (w *Watcher) judge(so check.StreamOptions) {
	defer close(w.done)
	violated := false
	stream := check.NewStream(context.Background(), so, func(sv check.StreamViolation) {
		if !violated {
			violated = true
			w.found(sv.Resource, sv.Events)
		}
	})
	follower := histories.NewFollower(stream)
	var batch []histories.Event
	last := time.Now()
	for !violated {
		select {
		case <-w.stop:
			return
		case <-w.wake:
		case <-time.After(detectEvery):
		}
		w.mu.Lock()
		batch, w.queue = w.queue, batch[:0]
		w.mu.Unlock()
		for i := range batch {
			if err := follower.Add(&batch[i]); err != nil {
				return // the recorder wrote what the reader refuses: the whole judgement will say so
			}
		}
		if len(batch) == 0 || time.Since(last) >= detectEvery {
			stream.Detect()
			last = time.Now()
		}
	}
}
