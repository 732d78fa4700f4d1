package sched

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Real runs tasks as goroutines on the machine's monotonic clock.
type Real struct {
	start time.Time
	wg    sync.WaitGroup
}

// NewReal returns a Real runtime whose clock reads 0 now.
func NewReal() *Real { return &Real{start: time.Now()} }

// Run runs main as the first task and waits for every task to finish.
func (r *Real) Run(main func()) error {
	r.Go(main)
	r.wg.Wait()
	return nil
}

// Now returns the time since NewReal.
func (r *Real) Now() int64 { return int64(time.Since(r.start)) }

// Sleep waits d or until ctx is done.
func (r *Real) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Go starts fn on a goroutine that Run waits for.
func (r *Real) Go(fn func()) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		fn()
	}()
}

// Yield gives the Go scheduler a chance to run another goroutine.
func (r *Real) Yield() { runtime.Gosched() }

// NewGate returns a gate backed by a channel.
func (r *Real) NewGate() Gate { return &realGate{ch: make(chan struct{})} }

type realGate struct {
	once sync.Once
	ch   chan struct{}
}

func (g *realGate) Open() { g.once.Do(func() { close(g.ch) }) }

func (g *realGate) Wait(ctx context.Context, timeout time.Duration) bool {
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-g.ch:
		return true
	case <-expired:
		return false
	case <-ctx.Done():
		return false
	}
}

// AfterFunc runs fn on its own goroutine after d. Run does not wait for
// pending timers: fn must check for itself whether it still matters.
func (r *Real) AfterFunc(d time.Duration, fn func()) func() {
	t := time.AfterFunc(d, fn)
	return func() { t.Stop() }
}
