package sched

import (
	"context"
	"runtime"
	"sync"
	"time"
)

// Real runs tasks as goroutines on the machine's monotonic clock, or on
// whatever clock the time package gives: inside a testing/synctest bubble
// that is a virtual one (see NewRealDistinct).
type Real struct {
	start time.Time
	wg    sync.WaitGroup
	// wakes, when not nil, hands out the instants at which tasks wake,
	// no two the same (NewRealDistinct).
	wakes *instants
}

// NewReal returns a Real runtime whose clock reads 0 now.
func NewReal() *Real { return &Real{start: time.Now()} }

// NewRealDistinct returns a Real runtime on which no two tasks wake at the
// same instant: every wake-up — a task's start, the end of a Sleep, an
// AfterFunc, a gate's timeout, and the return of a Wait whose gate another
// task opened — is given an instant of its own, the first free nanosecond
// at or after the one asked for, by the task that causes it (the opener
// of a gate, the starter of a task), in the order it does so.
//
// That matters on a clock that moves only when every goroutine waits, the
// fake clock of a testing/synctest bubble: goroutines that become
// runnable at the same instant run in parallel there, in an order nothing
// fixes. With distinct instants one task of the run acts at a time, each
// in the order of the instants the run's own choices gave them, so a
// seeded run repeats its history byte for byte, as under Sim. What it does
// not cover: a task that wakes another and then keeps acting at that
// instant (a gate's opener does, its waiter does not), and goroutines the
// runtime did not start (a receiver's own), whose timers may meet a
// task's instant.
//
// On the machine's clock it only moves wake-ups by a nanosecond or so.
func NewRealDistinct() *Real {
	return &Real{start: time.Now(), wakes: &instants{taken: make(map[int64]struct{})}}
}

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
	t := time.NewTimer(r.wakeIn(d))
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
	var start time.Duration
	if r.wakes != nil {
		start = r.wakeIn(1)
	}
	go func() {
		defer r.wg.Done()
		if start > 0 {
			time.Sleep(start)
		}
		fn()
	}()
}

// Yield gives the Go scheduler a chance to run another goroutine.
func (r *Real) Yield() { runtime.Gosched() }

// NewGate returns a gate backed by a channel.
func (r *Real) NewGate() Gate { return &realGate{rt: r, ch: make(chan struct{})} }

// AfterFunc runs fn on its own goroutine after d. Run does not wait for
// pending timers: fn must check for itself whether it still matters.
func (r *Real) AfterFunc(d time.Duration, fn func()) func() {
	t := time.AfterFunc(r.wakeIn(max(d, 1)), fn)
	return func() { t.Stop() }
}

// wakeIn returns how long from now a task that asks to wake in d wakes:
// d, or with distinct instants, until the first free one at or after
// now+d.
func (r *Real) wakeIn(d time.Duration) time.Duration {
	if r.wakes == nil {
		return d
	}
	now := r.Now()
	return time.Duration(r.wakes.take(now, now+int64(d)) - now)
}

// wakeAt is wakeIn as an instant on the runtime's clock.
func (r *Real) wakeAt(d time.Duration) int64 {
	now := r.Now()
	if r.wakes == nil {
		return now + int64(d)
	}
	return r.wakes.take(now, now+int64(d))
}

// instants are the wake-up instants a distinct Real has handed out.
type instants struct {
	mu    sync.Mutex
	taken map[int64]struct{}
	// since counts the instants taken since the last sweep of those
	// already past.
	since int
}

// take returns the first instant at or after at that no other wake-up
// has; now is the present, before which nothing can be asked for again.
func (in *instants) take(now, at int64) int64 {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.since++; in.since >= 4096 {
		in.since = 0
		for t := range in.taken {
			if t <= now {
				delete(in.taken, t)
			}
		}
	}
	for {
		if _, ok := in.taken[at]; !ok {
			in.taken[at] = struct{}{}
			return at
		}
		at++
	}
}

type realGate struct {
	rt   *Real
	once sync.Once
	ch   chan struct{}

	// With distinct instants: waiting counts the waits that began
	// before the gate opened, and wakes are the instants the opener gave
	// them, in the order they began.
	mu      sync.Mutex
	opened  bool
	waiting int
	wakes   []int64
}

func (g *realGate) Open() {
	g.once.Do(func() {
		if g.rt.wakes != nil {
			g.mu.Lock()
			for range g.waiting {
				g.wakes = append(g.wakes, g.rt.wakeAt(1))
			}
			g.opened = true
			g.mu.Unlock()
		}
		close(g.ch)
	})
}

func (g *realGate) Wait(ctx context.Context, timeout time.Duration) bool {
	turn := -1
	if g.rt.wakes != nil {
		g.mu.Lock()
		if g.opened {
			g.mu.Unlock()
			return true // open already: nothing to wake from
		}
		turn = g.waiting
		g.waiting++
		g.mu.Unlock()
	}
	var expired <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(g.rt.wakeIn(timeout))
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-g.ch:
		g.wakeAtTurn(turn)
		return true
	case <-expired:
		return false
	case <-ctx.Done():
		return false
	}
}

// wakeAtTurn waits, with distinct instants, until the instant the opener
// gave the wait that began turn-th: until then the opener is the only
// task that acts.
func (g *realGate) wakeAtTurn(turn int) {
	if turn < 0 {
		return
	}
	g.mu.Lock()
	at := int64(-1)
	if turn < len(g.wakes) {
		at = g.wakes[turn]
	}
	g.mu.Unlock()
	if d := time.Duration(at - g.rt.Now()); at >= 0 && d > 0 {
		time.Sleep(d)
	}
}
