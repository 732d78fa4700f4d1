package sched

import (
	"container/heap"
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Sim is a deterministic discrete-event runtime. Tasks are goroutines, but
// only the task holding the baton runs; when it waits, the scheduler hands
// the baton to a task that is ready, choosing among ready tasks by its
// Order with the seeded generator, and advances the virtual clock to the
// next timer only when no task is ready. No real time passes in Sleep.
//
// Context cancellation is observed when a task next checks its context; a
// task parked on a virtual timer resumes when the clock reaches it, which
// under Sim is soon in real time.
type Sim struct {
	mu      sync.Mutex
	now     int64
	rng     *rand.Rand
	order   chooser
	steps   int
	ready   []*task
	timers  timerHeap
	seq     uint64
	live    int
	current *task
	done    chan struct{}
	err     error
}

type task struct {
	wake chan struct{}
	prio priority // under PCT
}

// NewSim returns a simulation whose choices follow seed, in Random order.
func NewSim(seed uint64) *Sim { return NewSimOrdered(seed, Random, 0) }

// NewSimOrdered returns a simulation whose choices follow seed and order;
// steps is what the caller expects the run's Steps to be, which PCT draws
// its change points from (Random ignores it).
func NewSimOrdered(seed uint64, order Order, steps int) *Sim {
	s := &Sim{rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), done: make(chan struct{})}
	s.order = order.chooser(s.rng, steps)
	return s
}

// Run runs main as the first task and returns when every task has
// finished. It returns an error if the remaining tasks all wait on gates
// that nothing can open.
func (s *Sim) Run(main func()) error {
	s.mu.Lock()
	s.spawn(main)
	s.dispatch()
	s.mu.Unlock()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Steps returns how many steps the simulation has scheduled: how many
// times a task was given the baton and ran until it next waited or ended.
func (s *Sim) Steps() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.steps
}

// Now returns the virtual time.
func (s *Sim) Now() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// Go starts fn as a task that is ready at the current virtual time.
func (s *Sim) Go(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spawn(fn)
}

func (s *Sim) spawn(fn func()) {
	t := &task{wake: make(chan struct{}, 1)}
	s.order.spawned(t)
	s.live++
	s.ready = append(s.ready, t)
	go func() {
		<-t.wake
		fn()
		s.mu.Lock()
		s.live--
		s.dispatch()
		s.mu.Unlock()
	}()
}

// Sleep parks the calling task for d of virtual time.
func (s *Sim) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	t := s.current
	s.pushTimer(s.now+int64(max(d, 0)), t, nil)
	s.block(t)
	return ctx.Err()
}

// Yield puts the calling task back among the ready ones and lets the
// scheduler choose, so another task may run first.
func (s *Sim) Yield() {
	s.mu.Lock()
	t := s.current
	s.ready = append(s.ready, t)
	s.block(t)
}

// block hands the baton on and waits for it to come back. It is called
// with mu held and returns with mu released.
func (s *Sim) block(t *task) {
	s.dispatch()
	s.mu.Unlock()
	<-t.wake
}

// dispatch wakes the next task. Called with mu held.
func (s *Sim) dispatch() {
	if len(s.ready) == 0 {
		s.advance()
	}
	if len(s.ready) == 0 {
		if s.live > 0 && s.err == nil {
			s.err = fmt.Errorf("sched: %d tasks wait on gates that nothing will open (deadlock at virtual time %v)", s.live, time.Duration(s.now))
		}
		s.current = nil
		select {
		case <-s.done:
		default:
			close(s.done)
		}
		return
	}
	i := s.order.pick(s.current, s.ready)
	s.steps++
	t := s.ready[i]
	s.ready[i] = s.ready[len(s.ready)-1]
	s.ready = s.ready[:len(s.ready)-1]
	s.current = t
	t.wake <- struct{}{}
}

// advance moves the clock to the earliest timer and readies every task
// whose timer fires then.
func (s *Sim) advance() {
	for len(s.timers) > 0 {
		at := s.timers[0].at
		for len(s.timers) > 0 && s.timers[0].at == at {
			tm := heap.Pop(&s.timers).(timer)
			if tm.wait != nil {
				if tm.wait.fired {
					continue // the gate opened first
				}
				tm.wait.fired, tm.wait.timedOut = true, true
			}
			s.ready = append(s.ready, tm.task)
		}
		if len(s.ready) > 0 {
			s.now = max(s.now, at)
			return
		}
	}
}

func (s *Sim) pushTimer(at int64, t *task, w *waiter) {
	s.seq++
	heap.Push(&s.timers, timer{at: at, seq: s.seq, task: t, wait: w})
}

// NewGate returns a gate whose waiters are parked tasks.
func (s *Sim) NewGate() Gate { return &simGate{sim: s} }

type waiter struct {
	task     *task
	fired    bool
	timedOut bool
}

type simGate struct {
	sim     *Sim
	open    bool
	waiters []*waiter
}

func (g *simGate) Open() {
	s := g.sim
	s.mu.Lock()
	defer s.mu.Unlock()
	if g.open {
		return
	}
	g.open = true
	for _, w := range g.waiters {
		if !w.fired {
			w.fired = true
			s.ready = append(s.ready, w.task)
		}
	}
	g.waiters = nil
}

func (g *simGate) Wait(ctx context.Context, timeout time.Duration) bool {
	if ctx.Err() != nil {
		return false
	}
	s := g.sim
	s.mu.Lock()
	if g.open {
		s.mu.Unlock()
		return true
	}
	w := &waiter{task: s.current}
	g.waiters = append(g.waiters, w)
	if timeout > 0 {
		s.pushTimer(s.now+int64(timeout), w.task, w)
	}
	s.block(w.task)
	return !w.timedOut && ctx.Err() == nil
}

type timer struct {
	at   int64
	seq  uint64
	task *task
	wait *waiter
}

type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// AfterFunc starts a task that sleeps d of virtual time and then runs fn,
// unless stop was called in the meantime.
func (s *Sim) AfterFunc(d time.Duration, fn func()) func() {
	var stopped atomic.Bool
	s.Go(func() {
		_ = s.Sleep(context.Background(), d)
		if !stopped.Load() {
			fn()
		}
	})
	return func() { stopped.Store(true) }
}
