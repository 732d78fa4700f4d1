package lease

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// Store is the lease table of a real issuer (Redis keys, a database
// row): each method is one atomic step on the issuer. A Polled service
// drives it; the issuer, not this process, decides who holds a lease and
// which token it carries.
type Store interface {
	// Grant gives the lease on resource to worker, for ttl, with a fresh
	// token, when no lease on resource is current; ok is false when one
	// is. A granted token must be above every token granted on resource
	// before: that is the issuer's whole duty.
	Grant(ctx context.Context, resource string, worker int, ttl time.Duration) (token uint64, ok bool, err error)
	// End ends the lease on resource that carries token, if it is still
	// current, and reports whether it was.
	End(ctx context.Context, resource string, token uint64) (bool, error)
	// Left says how long the lease on resource that carries token has to
	// run on the issuer's clock: 0 when it is no longer current.
	Left(ctx context.Context, resource string, token uint64) (time.Duration, error)
	// Renew makes the lease on resource that carries token last ttl from
	// now on the issuer's clock, if it is still current, and reports
	// whether it was. A lease that ran out stays ended.
	Renew(ctx context.Context, resource string, token uint64, ttl time.Duration) (bool, error)
}

// FloorStore is a Store that can make the tokens of a resource start
// above a given one (see Polled.StartAbove).
type FloorStore interface {
	Floor(ctx context.Context, resource string, token uint64) error
}

// PollOptions say how a Polled service waits.
type PollOptions struct {
	// MinWait and MaxWait bound the backoff between grant attempts while
	// another worker holds the lease: it starts at MinWait and doubles up
	// to MaxWait.
	MinWait, MaxWait time.Duration
	// OpTimeout bounds each call to the store.
	OpTimeout time.Duration
	// RetryFor is how long Acquire keeps trying while every attempt
	// fails with ErrUnavailable (the issuer's server is down, restarting
	// or frozen), with the same backoff; zero gives up at the first
	// failure. A worker whose Acquire fails stops working for the rest
	// of the run, so a restart of the issuer would otherwise cost the
	// run its workers exactly when the issuer is under test.
	RetryFor time.Duration
	_        struct{} // keyed fields only: the struct may grow
}

// DefaultPollOptions polls from 1 ms up to every 10 ms, a tenth of the
// default 100 ms lease, gives a call to the store 5 s, and keeps trying
// for a minute while the issuer does not answer.
func DefaultPollOptions() PollOptions {
	return PollOptions{MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond, OpTimeout: 5 * time.Second, RetryFor: time.Minute}
}

// Polled is a lease service on a real issuer's Store. A waiting Acquire
// polls the store with a backoff on the run's clock, so waiters are not
// served in arrival order as lease.Local serves them. The service records
// every lease event itself: it is the only client of its store (each run
// keeps its leases under names of its own), so a lease it granted and did
// not end can only have ended by its TTL. A timer per lease asks the store
// when the TTL should have run out and records the expiry once the store
// confirms it; the next grant on the resource records it too if the timer
// has not yet. Grants, ends and their events on one resource are
// serialized, so the history's order is the issuer's order.
type Polled struct {
	env    Env
	store  Store
	opts   PollOptions
	closed atomic.Bool

	mu  sync.Mutex
	res map[string]*polledState
	// crashAt is when the issuer's server last crashed (Crashed), on
	// the run's clock, and crashed names it; 0 and "" when it never did.
	crashAt int64
	crashed string
}

type polledState struct {
	mu        sync.Mutex
	holder    *Lease
	asked     int64    // when the holder's grant or last renewal was asked for, on the run's clock
	renewed   bool     // whether asked is a renewal's
	stopTimer func()   // cancels the holder's TTL check
	onEnd     []func() // called once the holder's end is recorded (Suspend)
}

// NewPolled returns a lease service on store for the run env describes.
func NewPolled(env Env, store Store, opts PollOptions) *Polled {
	return &Polled{env: env, store: store, opts: opts, res: make(map[string]*polledState)}
}

func (p *Polled) state(resource string) *polledState {
	p.mu.Lock()
	defer p.mu.Unlock()
	st, ok := p.res[resource]
	if !ok {
		st = &polledState{}
		p.res[resource] = st
	}
	return st
}

func (p *Polled) op() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), p.opts.OpTimeout)
}

// Acquire implements Service: it tries to grant, and while another lease
// is current waits and tries again, until ctx is done. A call to the store
// in flight is not interrupted by ctx, so that a grant the issuer made is
// never lost: ctx is checked between attempts. An attempt the issuer did
// not answer (ErrUnavailable) is made again, for up to RetryFor of such
// failures in a row: it granted nothing this service knows of, so nothing
// is recorded for it (see ErrUnavailable for what it may leave behind).
func (p *Polled) Acquire(ctx context.Context, resource string, worker int) (Lease, error) {
	st := p.state(resource)
	wait := p.opts.MinWait
	failing := int64(-1) // since when every attempt went unanswered
	for {
		if err := ctx.Err(); err != nil {
			return Lease{}, fmt.Errorf("acquire lease on %s: %w", resource, err)
		}
		l, ok, err := p.try(st, resource, worker)
		switch {
		case err == nil:
			failing = -1
		case !errors.Is(err, ErrUnavailable) || p.over():
			return Lease{}, fmt.Errorf("acquire lease on %s: %w", resource, err)
		case failing < 0:
			failing = p.env.Runtime.Now()
		}
		if err != nil && time.Duration(p.env.Runtime.Now()-failing) >= p.opts.RetryFor {
			return Lease{}, fmt.Errorf("acquire lease on %s: %w (the issuer did not answer for %v)", resource, err, p.opts.RetryFor)
		}
		if ok {
			return l, nil
		}
		if err := p.env.Runtime.Sleep(ctx, wait); err != nil {
			return Lease{}, fmt.Errorf("acquire lease on %s: %w", resource, err)
		}
		wait = min(2*wait, p.opts.MaxWait)
	}
}

func (p *Polled) try(st *polledState, resource string, worker int) (Lease, bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	ctx, cancel := p.op()
	defer cancel()
	asked := p.env.Runtime.Now()
	token, ok, err := p.store.Grant(ctx, resource, worker, p.env.TTL)
	if err != nil || !ok {
		return Lease{}, false, err
	}
	how := "free"
	if st.holder != nil {
		p.ttlElapsedLocked(st)
		how = "reassigned"
	}
	l := Lease{Resource: resource, Token: token, Worker: worker}
	st.holder, st.asked, st.renewed = &l, asked, false
	Record(p.env.Recorder, histories.FAcquire, l, fmt.Sprintf("worker %d receives token %d (%s)", worker, token, how))
	p.watchLocked(st, l, p.env.TTL)
	return l, true, nil
}

// watchLocked checks after d whether l's TTL has run out on the issuer.
func (p *Polled) watchLocked(st *polledState, l Lease, d time.Duration) {
	st.stopTimer = p.env.Runtime.AfterFunc(d, func() { p.checkTTL(st, l) })
}

func (p *Polled) checkTTL(st *polledState, l Lease) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if p.over() || st.holder == nil || st.holder.Token != l.Token {
		return
	}
	ctx, cancel := p.op()
	defer cancel()
	left, err := p.store.Left(ctx, l.Resource, l.Token)
	switch {
	case p.over():
	case err != nil:
		p.watchLocked(st, l, p.opts.MaxWait) // ask again; the next grant would notice it too
	case left > 0:
		p.watchLocked(st, l, left) // the issuer's clock is behind ours
	default:
		p.ttlElapsedLocked(st)
	}
}

// ttlElapsedLocked records that the holder's lease ran out on the issuer,
// and how long after the grant was asked for: the issuer started the TTL
// after that, so an issuer that ends leases before their TTL shows in the
// history. (Counted from the grant's event instead, a loaded machine that
// delivers a grant late would seem to shorten the lease.)
//
// A lease asked for before the issuer's server crashed may instead have
// been lost with the data the server had not made durable: the issuer
// no longer has it either way, and the event says both.
func (p *Polled) ttlElapsedLocked(st *polledState) {
	after := time.Duration(p.env.Runtime.Now() - st.asked).Round(time.Millisecond)
	what := "it was asked for"
	if st.renewed {
		what = "its last renewal was asked for"
	}
	why := fmt.Sprintf("TTL elapsed (%v lease, gone from the issuer %v after %s)", p.env.TTL, after, what)
	if at, server := p.lastCrash(); at > st.asked {
		why = fmt.Sprintf("gone from the issuer, whose server (%s) crashed while it held the lease: "+
			"lost with the data the server had not made durable, or TTL elapsed (%v lease, gone %v after %s)", server, p.env.TTL, after, what)
	}
	p.endLocked(st, why)
}

// Crashed notes that the issuer's server, named server, crashed now (a
// SIGKILL fencecheck sent): the expiry of a lease granted (or last
// renewed) before it says that the crash may have lost it.
func (p *Polled) Crashed(server string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.crashAt, p.crashed = p.env.Runtime.Now(), server
}

func (p *Polled) lastCrash() (int64, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.crashAt, p.crashed
}

// over reports whether the run, or the service, has ended: nothing may
// be recorded then.
func (p *Polled) over() bool { return p.closed.Load() || p.env.Life.Err() != nil }

// endLocked records that the holder's lease ended, for why.
func (p *Polled) endLocked(st *polledState, why string) {
	h := *st.holder
	Record(p.env.Recorder, histories.FExpire, h, fmt.Sprintf("worker %d loses token %d: %s", h.Worker, h.Token, why))
	p.clearLocked(st)
}

// clearLocked forgets the holder, whose end was recorded: its TTL check
// stops, and whoever waits for its end is told.
func (p *Polled) clearLocked(st *polledState) {
	st.stopTimer()
	st.holder = nil
	for _, f := range st.onEnd {
		f()
	}
	st.onEnd = nil
}

// Renew implements Renewer: the store extends the lease on the issuer,
// which still decides whether it is current; a renewal the issuer refuses
// finds the lease run out, and records that.
func (p *Polled) Renew(_ context.Context, l Lease) error {
	st := p.state(l.Resource)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.holder == nil || st.holder.Token != l.Token {
		return fmt.Errorf("renew the lease on %s with token %d: %w", l.Resource, l.Token, ErrNotHeld)
	}
	ctx, cancel := p.op()
	defer cancel()
	asked := p.env.Runtime.Now()
	ok, err := p.store.Renew(ctx, l.Resource, l.Token, p.env.TTL)
	switch {
	case err != nil:
		return fmt.Errorf("renew the lease on %s with token %d: %w", l.Resource, l.Token, err)
	case !ok:
		p.ttlElapsedLocked(st)
		return fmt.Errorf("renew the lease on %s with token %d: %w", l.Resource, l.Token, ErrNotHeld)
	}
	st.asked, st.renewed = asked, true
	st.stopTimer()
	p.watchLocked(st, l, p.env.TTL)
	Record(p.env.Recorder, histories.FRenew, l, fmt.Sprintf("worker %d renews token %d for %v", l.Worker, l.Token, p.env.TTL))
	return nil
}

// Held implements HolderChecker: it asks the store how long the lease
// has left (Store.Left). A lease the store no longer has, that this
// service still counted as current, ran out by its TTL: that is recorded.
func (p *Polled) Held(_ context.Context, l Lease) (bool, error) {
	st := p.state(l.Resource)
	st.mu.Lock()
	defer st.mu.Unlock()
	ctx, cancel := p.op()
	defer cancel()
	left, err := p.store.Left(ctx, l.Resource, l.Token)
	if err != nil {
		return false, fmt.Errorf("ask whether the lease on %s with token %d is held: %w", l.Resource, l.Token, err)
	}
	if left == 0 && st.holder != nil && st.holder.Token == l.Token && !p.over() {
		p.ttlElapsedLocked(st)
	}
	return left > 0, nil
}

// Release implements Service. When the store cannot be reached, the lease
// runs out by its TTL and the TTL check records that.
func (p *Polled) Release(l Lease) {
	st := p.state(l.Resource)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.holder == nil || st.holder.Token != l.Token {
		return // already expired and possibly reassigned
	}
	ctx, cancel := p.op()
	defer cancel()
	ended, err := p.store.End(ctx, l.Resource, l.Token)
	switch {
	case err != nil:
	case ended:
		Record(p.env.Recorder, histories.FRelease, l, fmt.Sprintf("worker %d releases token %d", l.Worker, l.Token))
		p.clearLocked(st)
	default:
		p.ttlElapsedLocked(st)
	}
}

// Expire implements Service.
func (p *Polled) Expire(resource string) bool {
	st := p.state(resource)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.holder == nil {
		return false
	}
	return p.endEarlyLocked(st, "expired early by the nemesis")
}

// ExpireToken implements Service.
func (p *Polled) ExpireToken(resource string, token uint64) bool {
	st := p.state(resource)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.holder == nil || st.holder.Token != token {
		return false
	}
	return p.endEarlyLocked(st, "it outlived a pause or a delayed write (the nemesis)")
}

// endEarlyLocked revokes the holder's lease on the issuer.
func (p *Polled) endEarlyLocked(st *polledState, why string) bool {
	h := *st.holder
	ctx, cancel := p.op()
	defer cancel()
	ended, err := p.store.End(ctx, h.Resource, h.Token)
	switch {
	case err != nil:
		return false
	case ended:
		p.endLocked(st, why)
		return true
	default:
		p.ttlElapsedLocked(st)
		return false
	}
}

// StartAbove makes the tokens of resource start above token, when the
// store can (a FloorStore). When it cannot, or the call fails, the
// issuer issues what it issues: writes below the resource's token are
// then stale, and a receiver that rejects them is right.
func (p *Polled) StartAbove(resource string, token uint64) {
	f, ok := p.store.(FloorStore)
	if !ok {
		return
	}
	ctx, cancel := p.op()
	defer cancel()
	_ = f.Floor(ctx, resource, token)
}

// Close stops the TTL checks and closes the store, if it is an io.Closer
// (which removes what the run created on the issuer).
func (p *Polled) Close() error {
	p.closed.Store(true)
	p.mu.Lock()
	states := make([]*polledState, 0, len(p.res))
	for _, st := range p.res {
		states = append(states, st)
	}
	p.mu.Unlock()
	for _, st := range states {
		st.mu.Lock()
		if st.holder != nil {
			p.clearLocked(st) // nothing more is recorded
		}
		st.mu.Unlock()
	}
	if c, ok := p.store.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// The capabilities the harness and verify look for.
var (
	_ Floored   = (*Polled)(nil)
	_ Suspender = (*Polled)(nil)
)
