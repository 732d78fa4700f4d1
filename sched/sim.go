package sched

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Sim is a deterministic discrete-event runtime. Only the task holding the
// baton runs; when it waits, the scheduler hands the baton to a task that
// is ready, choosing among ready tasks by its Order with the seeded
// generator, and advances the virtual clock to the next timer only when
// no task is ready. No real time passes in Sleep.
//
// Tasks run on goroutines, but a task is not a goroutine of its own: a
// goroutine whose task ended runs the next task the scheduler picks if
// that task has not started yet, and otherwise waits, idle, to start a
// later one; and an AfterFunc runs on no goroutine at all until its time
// comes and it was not stopped. Which goroutine carries a task changes
// nothing the tasks can see: the choices, the clock and the steps are
// those of one goroutine per task. It saves what a goroutine per task
// costs, the start of a goroutine and a hand-off between goroutines at
// most of the steps (BenchmarkHarness/deterministic).
//
// Context cancellation is observed when a task next checks its context; a
// task parked on a virtual timer resumes when the clock reaches it, which
// under Sim is soon in real time.
type Sim struct {
	mu      sync.Mutex
	now     atomic.Int64 // read without mu by Now; written with mu held
	rng     *rand.Rand
	order   chooser
	steps   int
	ready   []*task
	timers  timerHeap
	seq     uint64
	live    int
	current *task
	// idle are goroutines whose task ended, waiting to carry a task that
	// has not started.
	idle []*carrier
	free []*task // ended tasks, to be reused
	done chan struct{}
	err  error
}

// task is one of the simulation's tasks: a function that runs from the
// step at which it is first picked until it ends, parking at each wait.
type task struct {
	// fn is the body of a task that has not started; nil once it runs on
	// its carrier.
	fn      func()
	carrier *carrier
	// after is the state of an AfterFunc task that has not yet run its
	// function (see AfterFunc); nil otherwise.
	after *afterTask
	prio  priority // under PCT

	// The task's timer, while it is in the heap (at index heapAt).
	at        int64
	seq       uint64
	heapAt    int
	waitTimer bool // the timer is a gate wait's timeout, not a Sleep

	// The task's gate wait: waitGen numbers its waits, so that a gate
	// it stopped waiting for does not wake it later.
	waitGen  uint64
	fired    bool // the wait ended: the gate opened or the timeout passed
	timedOut bool
}

// carrier is a goroutine that runs tasks, one after another. wake hands
// it its parked task back, or, while it is idle, a task to start (nil:
// the simulation ended).
type carrier struct {
	wake chan *task
}

// afterTask is an AfterFunc before it ran its function: it first sleeps
// d, then runs fn unless stopped.
type afterTask struct {
	d       time.Duration
	fn      func()
	slept   bool
	stopped atomic.Bool
}

// NewSim returns a simulation whose choices follow seed, in Random order.
func NewSim(seed uint64) *Sim { return NewSimOrdered(seed, Random(), 0) }

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
	s.resume(s.next())
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
func (s *Sim) Now() int64 { return s.now.Load() }

// Go starts fn as a task that is ready at the current virtual time.
func (s *Sim) Go(fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spawn(fn)
}

// spawn makes a task of fn ready. Called with mu held.
func (s *Sim) spawn(fn func()) *task {
	var t *task
	if n := len(s.free); n > 0 {
		t = s.free[n-1]
		s.free = s.free[:n-1]
	} else {
		t = &task{heapAt: -1}
	}
	t.fn, t.after = fn, nil
	s.order.spawned(t)
	s.live++
	s.ready = append(s.ready, t)
	return t
}

// Sleep parks the calling task for d of virtual time.
func (s *Sim) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	t := s.current
	s.pushTimer(s.now.Load()+int64(max(d, 0)), t, false)
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
// with mu held and returns with mu released. When the scheduler picks t
// again at once, no goroutine switches.
func (s *Sim) block(t *task) {
	next := s.next()
	if next == t {
		s.mu.Unlock()
		return
	}
	s.resume(next)
	c := t.carrier
	s.mu.Unlock()
	<-c.wake
}

// next picks the task that runs the next step and returns it, or nil when
// no task can run any more. The steps of an AfterFunc before its function
// runs are taken here, on whatever goroutine is scheduling. Called with mu
// held.
func (s *Sim) next() *task {
	for {
		if len(s.ready) == 0 {
			s.advance()
		}
		if len(s.ready) == 0 {
			s.finish()
			return nil
		}
		i := s.order.pick(s.current, s.ready)
		s.steps++
		t := s.ready[i]
		s.ready[i] = s.ready[len(s.ready)-1]
		s.ready = s.ready[:len(s.ready)-1]
		s.current = t
		if t.after == nil || s.stepAfter(t) {
			return t
		}
	}
}

// stepAfter takes a step of an AfterFunc task: its sleep, or once woken
// its end when stopped. It reports whether the task goes on to run its
// function, which then needs a goroutine. Called with mu held.
func (s *Sim) stepAfter(t *task) bool {
	a := t.after
	if !a.slept {
		a.slept = true
		s.pushTimer(s.now.Load()+int64(max(a.d, 0)), t, false)
		return false
	}
	t.after = nil
	if a.stopped.Load() {
		s.end(t)
		return false
	}
	t.fn = a.fn
	return true
}

// finish ends the simulation: nothing is ready and no timer is left.
// Called with mu held.
func (s *Sim) finish() {
	if s.live > 0 && s.err == nil {
		s.err = fmt.Errorf("sched: %d tasks wait on gates that nothing will open (deadlock at virtual time %v)", s.live, time.Duration(s.now.Load()))
	}
	s.current = nil
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	for _, c := range s.idle {
		c.wake <- nil
	}
	s.idle = nil
}

// end counts t finished and keeps it for reuse, by both a carrier whose
// task returned and an AfterFunc stopped before its time. Only spawn
// reuses a task, never during a pick, so the next pick may still consult
// it (PCT's change points). Called with mu held.
func (s *Sim) end(t *task) {
	s.live--
	if t.heapAt < 0 {
		s.free = append(s.free, t)
	}
}

// resume gives the baton to t: it wakes t's goroutine, or, for a task
// that has not started, an idle goroutine or a new one to carry it.
// Called with mu held.
func (s *Sim) resume(t *task) {
	switch {
	case t == nil:
	case t.fn == nil:
		t.carrier.wake <- t
	case len(s.idle) > 0:
		c := s.idle[len(s.idle)-1]
		s.idle = s.idle[:len(s.idle)-1]
		t.carrier = c
		c.wake <- t
	default:
		c := &carrier{wake: make(chan *task, 1)}
		t.carrier = c
		go s.carry(c, t)
	}
}

// carry runs tasks on one goroutine: t, then, whenever the step after a
// task's end belongs to a task that has not started, that one, without a
// goroutine switch; otherwise it wakes the task picked and waits, idle,
// for one to start.
func (s *Sim) carry(c *carrier, t *task) {
	for t != nil {
		fn := t.fn
		t.fn = nil
		fn()
		s.mu.Lock()
		s.end(t)
		next := s.next()
		switch {
		case next == nil:
			s.mu.Unlock()
			return
		case next.fn != nil:
			next.carrier = c
			s.mu.Unlock()
			t = next
		default:
			s.idle = append(s.idle, c)
			next.carrier.wake <- next
			s.mu.Unlock()
			t = <-c.wake
		}
	}
}

// advance moves the clock to the earliest timer and readies every task
// whose timer fires then.
func (s *Sim) advance() {
	if len(s.timers) == 0 {
		return
	}
	at := s.timers[0].at
	for len(s.timers) > 0 && s.timers[0].at == at {
		t := s.timers.pop()
		if t.waitTimer {
			t.fired, t.timedOut = true, true
		}
		s.ready = append(s.ready, t)
	}
	s.now.Store(max(s.now.Load(), at))
}

// pushTimer wakes t at virtual time at; wait says it is the timeout of a
// gate wait. A task has at most one timer: it is parked until it fires,
// or, for a wait, until the gate opens and takes it out of the heap.
func (s *Sim) pushTimer(at int64, t *task, wait bool) {
	s.seq++
	t.at, t.seq, t.waitTimer = at, s.seq, wait
	s.timers.push(t)
}

// NewGate returns a gate whose waiters are parked tasks.
func (s *Sim) NewGate() Gate {
	g := &simGate{sim: s}
	g.waiters = g.first[:0]
	return g
}

// gateWaiter is a task waiting on a gate, in its gen-th wait.
type gateWaiter struct {
	task *task
	gen  uint64
}

type simGate struct {
	sim     *Sim
	open    bool
	waiters []gateWaiter
	first   [1]gateWaiter // most gates have one waiter
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
		t := w.task
		if t.waitGen == w.gen && !t.fired {
			t.fired = true
			if t.heapAt >= 0 {
				s.timers.remove(t)
			}
			s.ready = append(s.ready, t)
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
	t := s.current
	t.waitGen++
	t.fired, t.timedOut = false, false
	g.waiters = append(g.waiters, gateWaiter{task: t, gen: t.waitGen})
	if timeout > 0 {
		s.pushTimer(s.now.Load()+int64(timeout), t, true)
	}
	s.block(t)
	return !t.timedOut && ctx.Err() == nil
}

// AfterFunc starts a task that sleeps d of virtual time and then runs fn,
// unless stop was called in the meantime. Until fn runs the task needs no
// goroutine: its steps are taken by the scheduler (stepAfter).
func (s *Sim) AfterFunc(d time.Duration, fn func()) func() {
	a := &afterTask{d: d, fn: fn}
	s.mu.Lock()
	s.spawn(nil).after = a
	s.mu.Unlock()
	return func() { a.stopped.Store(true) }
}
