package workload

import (
	"context"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
)

// Burst makes the interleaving a check-then-write race needs: several
// writes with adjacent tokens reaching one resource at once. The stale
// writes of the pause and delay faults arrive after the newer write was
// answered, where a receiver that checks the token and writes in two
// steps still rejects them; its bug shows only when two writes pass the
// check before either writes, and the lower one writes last.
//
// A burst starts only in a run with a fault that makes stale writes
// (none with --nemesis none), and gathers on one resource, drawn from
// the run's seed. The worker
// that starts it and the workers that pick their next resource while it
// gathers (up to its size) take the lease on that resource one after
// another; each but the last gives its lease back at its pause point
// (leases handed on quickly: the next member has the lease at once) and
// waits there, at a barrier. When the last member arrives, or the first
// has waited Wait, every member sends its write at the same moment: the
// tokens are adjacent, the writes overlap. The last member, which still
// holds the lease, keeps it until every member's write is answered, so
// that the next job on the resource reads what the burst left.
//
// A member writes after giving its lease back, as a worker paused past
// its lease does: fencing must reject whichever write arrives after a
// higher token was accepted, and a correct receiver ends with the highest
// token accepted. Bursts are for the Fencing strategy only: the tempting
// fixes send no token, and a write after the lease was given back is a
// failure none of them claims to prevent (CompareFixes would blame them
// for the workload, not for the strategy).
type Burst struct {
	// Share is the probability that a worker picking its next resource,
	// while no burst gathers, starts one, in a run with a fault that makes
	// stale writes; zero: no bursts.
	Share float64
	// Size is the most writes a burst gathers, at least 2; each burst
	// draws its own from 2 to Size.
	Size int
	// Wait bounds how long a burst gathers, from its first member's
	// arrival at the barrier; then the members there write.
	Wait time.Duration
	_    struct{}
}

// On reports whether the workers make bursts.
func (b Burst) On() bool { return b.Share > 0 && b.Size >= 2 }

// burst is one gathering burst.
type burst struct {
	resource string
	size     int // members it gathers
	recruits int // workers that chose its resource for it, the starter included
	members  int // members at the barrier
	go_      sched.Gate
	closed   bool
	// answered counts the members' writes answered; all opens when every
	// member that was released has its answer.
	released, answered int
	all                sched.Gate
}

// bursts is the pool's one gathering burst, if any.
type bursts struct {
	mu  sync.Mutex
	cur *burst
}

// pick chooses the resource of a worker's next job: the gathering
// burst's while it still recruits, else one at random, which starts a
// burst with probability Share. All draws are the run's.
func (p *Pool) pick() (string, *burst) {
	bc := p.cfg.Burst
	if !bc.On() || !p.cfg.Strategy.Fences() {
		return p.cfg.Resources[p.Rand.IntN(len(p.cfg.Resources))], nil
	}
	p.bursts.mu.Lock()
	defer p.bursts.mu.Unlock()
	if b := p.bursts.cur; b != nil && !b.closed {
		if b.recruits < b.size {
			b.recruits++
			return b.resource, b
		}
	}
	resource := p.cfg.Resources[p.Rand.IntN(len(p.cfg.Resources))]
	if p.bursts.cur != nil || !p.staleFaults() || p.Rand.Float64() >= bc.Share {
		return resource, nil
	}
	b := &burst{resource: resource, size: 2 + p.Rand.IntN(bc.Size-1), recruits: 1,
		go_: p.Runtime.NewGate(), all: p.Runtime.NewGate()}
	p.bursts.cur = b
	return resource, b
}

// role is what a recruit is in its burst once it reached the barrier.
type role uint8

const (
	// late: the burst had closed; the worker writes as any job does.
	late role = iota
	// member: released with the others; its answer is counted.
	member
	// closer: the last member, which kept its lease and ends its job
	// only when every member's write is answered.
	closer
)

// staleFaults reports whether the run has a fault that makes stale
// writes (pause, delay, …): bursts are one more way of making them, and
// a run without such faults (--nemesis none) is the plain workload it
// was. They do not wait for the faults' windows: measured on
// memory://check-then-set-rare, bursts only inside the windows found
// fewer races than none at all.
func (p *Pool) staleFaults() bool {
	for _, f := range p.Pausers {
		if _, ok := f.(nemesis.StaleWriter); ok {
			return true
		}
	}
	for _, f := range p.Deliverers {
		if _, ok := f.(nemesis.StaleWriter); ok {
			return true
		}
	}
	return false
}

// join is a recruit's arrival at the barrier, at its pause point,
// holding the lease on the burst's resource. The last member returns at
// once and keeps its lease; the others give it back (release) and wait
// until the burst closes.
func (p *Pool) join(ctx context.Context, b *burst, release func()) role {
	p.bursts.mu.Lock()
	if b.closed {
		p.bursts.mu.Unlock()
		return late
	}
	b.members++
	if b.members >= b.size {
		p.closeLocked(b)
		p.bursts.mu.Unlock()
		return closer
	}
	first := b.members == 1
	p.bursts.mu.Unlock()
	release()
	wait := p.cfg.Burst.Wait
	if !first {
		wait = 0 // the first member's bound closes it for all
	}
	if !b.go_.Wait(ctx, wait) {
		p.bursts.mu.Lock()
		p.closeLocked(b)
		p.bursts.mu.Unlock()
	}
	return member
}

// closeLocked releases the burst's members: they write now.
func (p *Pool) closeLocked(b *burst) {
	if b.closed {
		return
	}
	b.closed = true
	b.released = b.members
	if b.released == 0 {
		b.all.Open()
	}
	if p.bursts.cur == b {
		p.bursts.cur = nil
	}
	b.go_.Open()
}

// answeredOne counts a released member's write as answered (or given up
// on, or never sent).
func (p *Pool) answeredOne(b *burst) {
	p.bursts.mu.Lock()
	defer p.bursts.mu.Unlock()
	b.answered++
	if b.answered >= b.released {
		b.all.Open()
	}
}

// leave is a recruit that did not reach the barrier (no lease, the run
// ending before its write): the burst stops waiting for it.
func (p *Pool) leave(b *burst) {
	p.bursts.mu.Lock()
	defer p.bursts.mu.Unlock()
	if b.closed {
		return
	}
	b.size--
	if b.members > 0 && b.members >= b.size {
		p.closeLocked(b)
	} else if b.size < 2 && b.members == 0 {
		p.closeLocked(b)
	}
}
