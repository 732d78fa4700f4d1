package harness

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/histories"
)

// Lease is one grant of ownership of a resource, with the fencing token
// that the holder must carry on every write.
type Lease struct {
	Resource string
	Token    uint64
	Worker   int
}

// LeaseService issues leases and their tokens. The harness's own
// implementation keeps them in memory; a real issuer (a database sequence,
// etcd) can replace it, as long as tokens per resource only grow.
type LeaseService interface {
	// Acquire blocks until worker holds the lease on resource, or ctx is
	// done.
	Acquire(ctx context.Context, resource string, worker int) (Lease, error)
	// Release gives the lease back, if it is still current.
	Release(l Lease)
	// Expire ends the current lease on resource early and reports whether
	// there was one.
	Expire(resource string) bool
	// ExpireToken ends the lease on resource that carries token, if it
	// is still the current one, and reports whether it was.
	ExpireToken(resource string, token uint64) bool
}

// localLeases is an in-memory lease service: per-resource scope,
// monotonically increasing tokens, a TTL, and reassignment to the next
// waiting worker in arrival order. Expiry does not tell the holder, just
// as a real scheduler's does not: that is the whole problem.
type localLeases struct {
	rt   sched.Runtime
	rec  *histories.Recorder
	ttl  time.Duration
	life context.Context // expiry timers stop with it

	mu  sync.Mutex
	res map[string]*leaseState
}

type leaseState struct {
	next      uint64
	holder    *Lease
	stopTimer func() // cancels the holder's expiry
	waiters   []*leaseWaiter
}

type leaseWaiter struct {
	worker  int
	gate    sched.Gate
	granted *Lease
}

func newLocalLeases(life context.Context, rt sched.Runtime, rec *histories.Recorder, ttl time.Duration) *localLeases {
	return &localLeases{rt: rt, rec: rec, ttl: ttl, life: life, res: make(map[string]*leaseState)}
}

func (l *localLeases) state(resource string) *leaseState {
	st, ok := l.res[resource]
	if !ok {
		st = &leaseState{}
		l.res[resource] = st
	}
	return st
}

// StartAbove makes the tokens of resource start above token, the token the
// resource held before the run: tokens at or below it would all be stale.
func (l *localLeases) StartAbove(resource string, token uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	st.next = max(st.next, token)
}

// Acquire implements LeaseService.
func (l *localLeases) Acquire(ctx context.Context, resource string, worker int) (Lease, error) {
	l.mu.Lock()
	st := l.state(resource)
	if st.holder == nil && len(st.waiters) == 0 {
		lease := l.grantLocked(st, resource, worker, "free")
		l.mu.Unlock()
		return lease, nil
	}
	w := &leaseWaiter{worker: worker, gate: l.rt.NewGate()}
	st.waiters = append(st.waiters, w)
	l.mu.Unlock()

	// Every holder's lease ends by its TTL, so the wait is bounded.
	w.gate.Wait(ctx, 0)
	l.mu.Lock()
	defer l.mu.Unlock()
	if w.granted != nil {
		return *w.granted, nil
	}
	for i, other := range st.waiters {
		if other == w {
			st.waiters = append(st.waiters[:i], st.waiters[i+1:]...)
			break
		}
	}
	return Lease{}, fmt.Errorf("acquire lease on %s: %w", resource, ctx.Err())
}

// Release implements LeaseService.
func (l *localLeases) Release(lease Lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(lease.Resource)
	if st.holder == nil || st.holder.Token != lease.Token {
		return // already expired and possibly reassigned
	}
	l.record(histories.FRelease, *st.holder, fmt.Sprintf("worker %d releases token %d", lease.Worker, lease.Token))
	st.stopTimer()
	st.holder = nil
	l.grantNextLocked(st, lease.Resource, "released")
}

// Expire implements LeaseService.
func (l *localLeases) Expire(resource string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	if st.holder == nil {
		return false
	}
	l.expireLocked(st, resource, "expired early by the nemesis")
	return true
}

// ExpireToken implements LeaseService.
func (l *localLeases) ExpireToken(resource string, token uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	if st.holder == nil || st.holder.Token != token {
		return false
	}
	l.expireLocked(st, resource, "it outlived a pause or a delayed write (the nemesis)")
	return true
}

func (l *localLeases) expireAfterTTL(resource string, token uint64) {
	if l.life.Err() != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	if st.holder != nil && st.holder.Token == token {
		l.expireLocked(st, resource, "TTL elapsed")
	}
}

func (l *localLeases) expireLocked(st *leaseState, resource, why string) {
	h := *st.holder
	l.record(histories.FExpire, h, fmt.Sprintf("worker %d loses token %d: %s", h.Worker, h.Token, why))
	st.stopTimer()
	st.holder = nil
	l.grantNextLocked(st, resource, "reassigned")
}

func (l *localLeases) grantNextLocked(st *leaseState, resource, how string) {
	if len(st.waiters) == 0 {
		return
	}
	w := st.waiters[0]
	st.waiters = st.waiters[1:]
	lease := l.grantLocked(st, resource, w.worker, how)
	w.granted = &lease
	w.gate.Open()
}

func (l *localLeases) grantLocked(st *leaseState, resource string, worker int, how string) Lease {
	st.next++
	lease := Lease{Resource: resource, Token: st.next, Worker: worker}
	st.holder = &lease
	l.record(histories.FAcquire, lease, fmt.Sprintf("worker %d receives token %d (%s)", worker, lease.Token, how))
	st.stopTimer = l.rt.AfterFunc(l.ttl, func() { l.expireAfterTTL(resource, lease.Token) })
	return lease
}

func (l *localLeases) record(f string, lease Lease, detail string) {
	l.rec.Record(&histories.Event{Process: -1, Actor: histories.ActorLease, F: f, Resource: lease.Resource,
		Token: lease.Token, HasToken: true, Holder: lease.Worker, HasHolder: true, Detail: detail})
}
