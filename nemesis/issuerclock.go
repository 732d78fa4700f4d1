package nemesis

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/sched"
)

// IssuerClock jumps the token issuer's wall clock forward (a private
// redis-server under libfaketime: lease.ClockJumper), as an NTP step or
// an operator's `date -s` would. An issuer whose leases are timeouts on
// its own clock then ends every lease at once, while each holder still
// believes it holds its own: the issuer grants the resource again, and two
// workers hold one lease. A write of the older holder that reaches the
// receiver before the newer holder's is accepted although its lease had
// ended (`--require exclusive` finds it); once the newer holder has
// written, fencing rejects the older one. The article's point: a lease
// alone gives no mutual exclusion when a clock jumps, a token at the
// resource keeps the writes in order all the same.
//
// It acts once per run, on events, not timers: the first worker that
// reaches its pause point in the fault phase holds a lease the issuer
// granted, so the clock jumps then, by Jump, and that worker is held
// until another worker holds a newer lease on its resource and stands at
// its own pause point; the newer holder is then held until the older
// one's write was accepted (bounded), so that the older holder writes
// inside the newer one's lease. Its events record the jump (begin, end
// once the server's clock reads it); the lease events record the early
// end (the grant that reassigns the lease names how long after its grant
// the lease was gone from the issuer).
//
// What it does not cover: a clock that jumps back (leases last longer,
// nothing is reassigned early), a clock that drifts, and an issuer whose
// leases do not follow its wall clock (etcd's are kept by the leader's
// monotonic ticks; a Go binary is not reached by LD_PRELOAD either).
type IssuerClock struct {
	toggle
	issuer *SharedIssuer
	// Jump is how far the clock jumps; zero is four lease TTLs, at
	// least a second, so that every lease granted ends at once.
	Jump time.Duration

	phase atomic.Bool // the fault phase has begun
	first atomic.Bool // the jump has begun

	mu  sync.Mutex
	two *twoHolders // the older holder waiting for a newer one; nil when none
}

// twoHolders is the older holder of a jump and what its resource's newer
// holder opens.
type twoHolders struct {
	resource string
	token    uint64
	newer    sched.Gate // opens when a newer holder stands at its pause point
	claimed  bool
}

// NewIssuerClock returns the issuer-clock fault; the harness attaches the
// run's issuer servers to it.
func NewIssuerClock() *IssuerClock { return &IssuerClock{toggle: toggle{name: "issuer-clock"}} }

// Available implements Fault: the clock is that of a server fencecheck
// started itself.
func (f *IssuerClock) Available(site Site) error {
	if !site.IssuerServers {
		return &Unavailable{Fault: f.name, Needs: NeedIssuerServers}
	}
	return nil
}

// AttachIssuer implements IssuerAttacher.
func (f *IssuerClock) AttachIssuer(s *SharedIssuer) { f.issuer = s }

// JumpsIssuerClock marks the fault whose run must start its issuer with a
// clock that can jump (lease.Env.ClockJumps).
func (*IssuerClock) JumpsIssuerClock() {}

// Act implements Actor: it marks the fault phase, in which the first
// worker at its pause point makes the clock jump.
func (f *IssuerClock) Act(_ context.Context, env Env) {
	if f.issuer == nil {
		env.Fail(fmt.Errorf("%s fault: the run handed it no issuer servers", f.name))
		return
	}
	f.phase.Store(true)
}

// Pause implements Pauser.
func (f *IssuerClock) Pause(ctx context.Context, env Env, pp PausePoint) {
	s := f.issuer
	if s == nil {
		return // Act reports it
	}
	if two := f.claim(pp); two != nil {
		done := env.Holding(pp.Worker)
		defer done()
		two.newer.Open()
		// The older holder writes now: let it land inside this lease.
		env.NewerAccepted(pp.Resource, two.token-1).Wait(ctx, 8*env.LeaseTTL())
		return
	}
	if !f.phase.Load() || !f.first.CompareAndSwap(false, true) {
		s.holdWhileDown(ctx)
		return
	}
	if pp.Token == 0 || !s.reserve(ctx, env, false) {
		return
	}
	done := env.Holding(pp.Worker)
	defer done()
	two := f.jump(ctx, env, pp)
	s.release()
	if two == nil {
		return
	}
	ok := two.newer.Wait(ctx, 8*env.LeaseTTL())
	f.mu.Lock()
	f.two = nil
	f.mu.Unlock()
	if !ok {
		record(env, f.name, histories.FBegin, fmt.Sprintf("worker %d resumes holding token %d on %s: no newer holder of %s stood at its pause point in time", pp.Worker, pp.Token, pp.Resource, pp.Resource))
		record(env, f.name, histories.FEnd, fmt.Sprintf("worker %d resumes", pp.Worker))
	}
}

// claim returns the jump's older holder when pp is the first newer holder
// of its resource, nil otherwise.
func (f *IssuerClock) claim(pp PausePoint) *twoHolders {
	f.mu.Lock()
	defer f.mu.Unlock()
	two := f.two
	if two == nil || two.claimed || pp.Resource != two.resource || pp.Token <= two.token {
		return nil
	}
	two.claimed = true
	return two
}

// jump jumps the issuer's clock while pp's worker holds its lease, and
// returns the older holder to wait for a newer one; nil when the clock
// did not jump (the run fails then).
func (f *IssuerClock) jump(ctx context.Context, env Env, pp PausePoint) *twoHolders {
	s := f.issuer
	jumper, ok := s.servers.(lease.ClockJumper)
	if !ok {
		env.Fail(fmt.Errorf("%s fault: the issuer's clock cannot jump (no lease.ClockJumper)", f.name))
		return nil
	}
	d := f.Jump
	if d <= 0 {
		d = max(4*env.LeaseTTL(), time.Second).Round(time.Second)
	}
	two := &twoHolders{resource: pp.Resource, token: pp.Token, newer: env.Runtime().NewGate()}
	f.mu.Lock()
	f.two = two
	f.mu.Unlock()
	s.outages.Add(1)
	name := s.names[0]
	record(env, f.name, histories.FBegin, fmt.Sprintf("%s's clock jumps %v forward while worker %d holds token %d on %s", name, d, pp.Worker, pp.Token, pp.Resource))
	if err := jumper.JumpClock(ctx, d); err != nil {
		record(env, f.name, histories.FEnd, fmt.Sprintf("%s's clock did not jump: %v", name, err))
		if ctx.Err() == nil { // not the run ending meanwhile
			env.Fail(fmt.Errorf("%s fault: %w", f.name, err))
		}
		return nil
	}
	record(env, f.name, histories.FEnd, fmt.Sprintf("%s's clock reads %v ahead: its leases ran out on it at once; worker %d, holding token %d, waits for a newer holder of %s", name, d, pp.Worker, pp.Token, pp.Resource))
	return two
}
