package lease

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// Local is the harness's own lease service: in memory, per-resource scope,
// monotonically increasing tokens, a TTL, and reassignment to the next
// waiting worker in arrival order. Expiry does not tell the holder, just
// as a real scheduler's does not: that is the whole problem.
type Local struct {
	rt   sched.Runtime
	rec  *histories.Recorder
	ttl  time.Duration
	life context.Context // expiry timers stop with it
	// tokens is each resource's sequence, inside the domain that ends
	// at maxToken (UseTokens).
	tokens   Tokens
	maxToken uint64

	mu  sync.Mutex
	res map[string]*leaseState
}

type leaseState struct {
	next      uint64
	holder    *Lease
	stopTimer func() // cancels the holder's expiry
	// expires is when the holder's TTL runs out, on the run's clock: a
	// real-time timer that fired just as a renewal stopped it finds the
	// lease renewed and leaves it.
	expires int64
	waiters []*leaseWaiter
}

type leaseWaiter struct {
	worker  int
	gate    sched.Gate
	granted *Lease
	err     error // why no lease could be granted
}

// NewLocal returns a lease service on rt whose leases last ttl and whose
// grants, expiries and releases go to rec; its expiry timers stop when
// life ends.
func NewLocal(life context.Context, rt sched.Runtime, rec *histories.Recorder, ttl time.Duration) *Local {
	return &Local{rt: rt, rec: rec, ttl: ttl, life: life, res: make(map[string]*leaseState), maxToken: math.MaxUint64}
}

// UseTokens makes l grant tokens in the sequence t, none above maxToken,
// the largest token the receiver stores; call it before the first grant.
// Without it l grants Dense tokens up to 2^64-1.
func (l *Local) UseTokens(t Tokens, maxToken uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens, l.maxToken = t, maxToken
}

func (l *Local) state(resource string) *leaseState {
	st, ok := l.res[resource]
	if !ok {
		st = &leaseState{}
		l.res[resource] = st
	}
	return st
}

// StartAbove makes the tokens of resource start above token, the token the
// resource held before the run: tokens at or below it would all be stale.
func (l *Local) StartAbove(resource string, token uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	st.next = max(st.next, token)
}

// Acquire implements Service.
func (l *Local) Acquire(ctx context.Context, resource string, worker int) (Lease, error) {
	l.mu.Lock()
	st := l.state(resource)
	if st.holder == nil && len(st.waiters) == 0 {
		lease, err := l.grantLocked(st, resource, worker, "free")
		l.mu.Unlock()
		return lease, err
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
	if w.err != nil {
		return Lease{}, w.err
	}
	for i, other := range st.waiters {
		if other == w {
			st.waiters = append(st.waiters[:i], st.waiters[i+1:]...)
			break
		}
	}
	return Lease{}, fmt.Errorf("acquire lease on %s: %w", resource, ctx.Err())
}

// Release implements Service.
func (l *Local) Release(lease Lease) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(lease.Resource)
	if st.holder == nil || st.holder.Token != lease.Token {
		return // already expired and possibly reassigned
	}
	l.record(histories.FRelease, *st.holder, grantDetail(lease.Worker, " releases token ", lease.Token, ""))
	st.stopTimer()
	st.holder = nil
	l.grantNextLocked(st, lease.Resource, "released")
}

// Expire implements Service.
func (l *Local) Expire(resource string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	if st.holder == nil {
		return false
	}
	l.expireLocked(st, resource, "expired early by the nemesis")
	return true
}

// ExpireToken implements Service.
func (l *Local) ExpireToken(resource string, token uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	if st.holder == nil || st.holder.Token != token {
		return false
	}
	l.expireLocked(st, resource, "it outlived a pause or a delayed write (the nemesis)")
	return true
}

func (l *Local) expireAfterTTL(resource string, token uint64) {
	if l.life.Err() != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(resource)
	if st.holder != nil && st.holder.Token == token && l.rt.Now() >= st.expires {
		l.expireLocked(st, resource, "TTL elapsed")
	}
}

func (l *Local) expireLocked(st *leaseState, resource, why string) {
	h := *st.holder
	l.record(histories.FExpire, h, fmt.Sprintf("worker %d loses token %d: %s", h.Worker, h.Token, why))
	st.stopTimer()
	st.holder = nil
	l.grantNextLocked(st, resource, "reassigned")
}

func (l *Local) grantNextLocked(st *leaseState, resource, how string) {
	if len(st.waiters) == 0 {
		return
	}
	w := st.waiters[0]
	st.waiters = st.waiters[1:]
	lease, err := l.grantLocked(st, resource, w.worker, how)
	if err != nil {
		// The sequence is at its end: no waiter will ever be granted.
		for _, w := range append(st.waiters, w) {
			w.err = err
			w.gate.Open()
		}
		st.waiters = nil
		return
	}
	w.granted = &lease
	w.gate.Open()
}

// grantLocked grants the next token of resource's sequence to worker; it
// fails when the sequence left the receiver's domain (UseTokens), for a
// token the receiver cannot store must never be sent.
func (l *Local) grantLocked(st *leaseState, resource string, worker int, how string) (Lease, error) {
	next, ok := l.tokens.Next(st.next, l.maxToken)
	if !ok {
		return Lease{}, fmt.Errorf("acquire lease on %s after token %d: %w (%d)", resource, st.next, ErrTokensExhausted, l.maxToken)
	}
	st.next = next
	lease := Lease{Resource: resource, Token: st.next, Worker: worker}
	st.holder = &lease
	l.record(histories.FAcquire, lease, grantDetail(worker, " receives token ", lease.Token, how))
	l.startTTLLocked(st, lease)
	return lease, nil
}

// startTTLLocked starts the holder's TTL from now.
func (l *Local) startTTLLocked(st *leaseState, lease Lease) {
	st.expires = l.rt.Now() + int64(l.ttl)
	st.stopTimer = l.rt.AfterFunc(l.ttl, func() { l.expireAfterTTL(lease.Resource, lease.Token) })
}

// Renew implements Renewer: the holder's TTL starts again from now, on
// the run's clock (the simulated one in a deterministic run).
func (l *Local) Renew(_ context.Context, lease Lease) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(lease.Resource)
	if st.holder == nil || st.holder.Token != lease.Token {
		return fmt.Errorf("renew the lease on %s with token %d: %w", lease.Resource, lease.Token, ErrNotHeld)
	}
	st.stopTimer()
	l.startTTLLocked(st, *st.holder)
	l.record(histories.FRenew, *st.holder, fmt.Sprintf("worker %d renews token %d for %v", st.holder.Worker, lease.Token, l.ttl))
	return nil
}

// Held implements HolderChecker.
func (l *Local) Held(_ context.Context, lease Lease) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.state(lease.Resource)
	return st.holder != nil && st.holder.Token == lease.Token, nil
}

// grantDetail is "worker W" verb "T", then " (how)" unless how is empty:
// the detail of a grant or a release, the two lease events of every job,
// worded without fmt, whose Sprintf showed in the profile of
// BenchmarkHarness/deterministic, and in one allocation.
func grantDetail(worker int, verb string, token uint64, how string) string {
	b := make([]byte, 0, 64)
	b = append(b, "worker "...)
	b = strconv.AppendInt(b, int64(worker), 10)
	b = append(b, verb...)
	b = strconv.AppendUint(b, token, 10)
	if how != "" {
		b = append(b, " ("...)
		b = append(b, how...)
		b = append(b, ')')
	}
	return string(b)
}

func (l *Local) record(f string, lease Lease, detail string) {
	Record(l.rec, f, lease, detail)
}

var _ Floored = (*Local)(nil)
