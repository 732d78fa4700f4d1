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

// IssuerAttacher is implemented by the faults that act on the token
// issuer's servers (issuer-kill, issuer-pause). The harness hands them the
// run's issuer, shared (ShareIssuer), before the run starts; a run with
// such a fault whose issuer has no servers is refused before it starts.
type IssuerAttacher interface {
	Fault
	AttachIssuer(*SharedIssuer)
}

// IssuerChecker is an IssuerAttacher that acts only on some issuers with
// servers (issuer-failover: one with a replica). The harness asks it once
// the issuer is open, and the run fails with its error before it starts.
type IssuerChecker interface {
	IssuerAttacher
	CanAct(lease.Servers) error
}

// Bounds of the issuer faults' waits, on the run's clock. They are upper
// bounds for an issuer that does not recover, never what a fault waits
// for: a leader election takes about a second, a restart less.
const (
	// leaderWait bounds the wait for another server to lead after the
	// leader went down.
	leaderWait = 30 * time.Second
	// leaderPoll is how often a fault asks who leads while it waits: the
	// issuer has no notice of a new leader to wait on.
	leaderPoll = 20 * time.Millisecond
	// holdWait bounds how long a worker waits at its pause point for a
	// server to come back.
	holdWait = 2 * time.Minute
)

// SharedIssuer is the run's issuer servers as its issuer faults share
// them. Only one server is down (killed or frozen) at a time, so that a
// three-member cluster keeps its quorum. During the first outage of each
// fault, a worker that reaches its pause point waits until the server is
// back (Pause), so that the run's remaining work, and so its next lease
// grants, come after that failover: a run bounded by its number of
// operations cannot use them all up while the issuer is down and end
// without a grant after it. Later outages hold no worker: workers then
// compete for leases while the issuer fails over.
type SharedIssuer struct {
	servers lease.Servers
	names   []string
	outages atomic.Int64 // outages begun

	mu      sync.Mutex
	up      sched.Gate // opens when the server that is down is back; nil while none is
	holding bool       // workers at their pause point wait for up
}

// ShareIssuer returns servers as the issuer faults of one run share them.
func ShareIssuer(servers lease.Servers) *SharedIssuer {
	return &SharedIssuer{servers: servers, names: servers.Servers()}
}

// reserve waits until no server is down and marks one as going down,
// holding workers at their pause point until it is back if hold; it
// reports false when ctx ended or the wait passed its bound.
func (s *SharedIssuer) reserve(ctx context.Context, env Env, hold bool) bool {
	for {
		up := s.tryReserve(env, hold)
		if up == nil {
			return true
		}
		if !up.Wait(ctx, holdWait) {
			return false
		}
	}
}

// tryReserve marks a server as going down, if none is, and returns nil;
// else it returns the gate that opens when the one that is down is back.
func (s *SharedIssuer) tryReserve(env Env, hold bool) sched.Gate {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.up != nil {
		return s.up
	}
	s.up, s.holding = env.Runtime().NewGate(), hold
	return nil
}

// holdWorkers makes workers at their pause point wait until the outage
// reserved ends.
func (s *SharedIssuer) holdWorkers() {
	s.mu.Lock()
	s.holding = s.up != nil
	s.mu.Unlock()
}

// release marks the server that was down as back.
func (s *SharedIssuer) release() {
	s.mu.Lock()
	up := s.up
	s.up, s.holding = nil, false
	s.mu.Unlock()
	up.Open()
}

// holdWhileDown waits, bounded, while a server of a first outage is down.
func (s *SharedIssuer) holdWhileDown(ctx context.Context) {
	s.mu.Lock()
	up, holding := s.up, s.holding
	s.mu.Unlock()
	if holding {
		up.Wait(ctx, holdWait)
	}
}

// leads words who leads: server i, or none (-1).
func (s *SharedIssuer) leads(i int) string {
	switch {
	case len(s.names) == 1:
		return "a single server has no leader"
	case i < 0:
		return "no server answers as the leader"
	}
	return "the leader is " + s.names[i]
}

// awaitLeader asks who leads until a server other than not does, and
// returns it; -1 when none did within leaderWait or the fault phase.
func (s *SharedIssuer) awaitLeader(ctx context.Context, env Env, not int) int {
	rt := env.Runtime()
	deadline := rt.Now() + int64(leaderWait)
	for {
		if l := s.servers.Leader(ctx); l >= 0 && l != not {
			return l
		}
		if rt.Now() >= deadline || rt.Sleep(ctx, leaderPoll) != nil {
			return -1
		}
	}
}

// issuerFault is what issuer-kill and issuer-pause share: when to act,
// whom to act on, and the record of each outage.
//
// The first outage of a run does not wait for the schedule: it comes when
// the first worker reaches its pause point in the fault phase (it holds a
// lease, so the issuer has granted one), and it takes down the leader,
// waiting until another server leads. Every run with the fault therefore
// sees a leader change between lease grants, however short it is. Later
// outages come at random intervals while the schedule has the fault
// active, and hit the leader with probability LeaderShare.
type issuerFault struct {
	toggle
	issuer *SharedIssuer
	// Every is the mean time between outages while active; default three
	// lease TTLs. Each interval is longer by the time the last outage
	// took, so that the issuer is up at least as long as it was down.
	Every time.Duration
	// Down is the mean time a server stays down once another leads (or
	// at once, for a follower); default one lease TTL.
	Down time.Duration
	// LeaderShare is the probability that an outage after the first
	// takes down the leader rather than a follower.
	LeaderShare float64

	outage  outage
	phase   atomic.Bool  // the fault phase has begun
	first   atomic.Bool  // the first outage has begun
	lastOut atomic.Int64 // how long the last outage took, on the run's clock
}

// outage is how one fault takes a server down and brings it back.
type outage struct {
	signal string                             // "SIGKILL"
	down   func(s lease.Servers, i int) error // take server i down
	up     func(ctx context.Context, s lease.Servers, i int) error
	back   string // what the end event says: "rejoined and serves"
	upCall string // what failed when up fails: "start again"
}

func newIssuerFault(name string, o outage) issuerFault {
	return issuerFault{toggle: toggle{name: name}, LeaderShare: 0.5, outage: o}
}

// Available implements Fault: the issuer faults act on servers
// fencecheck started itself, which the site must have.
func (f *issuerFault) Available(site Site) error {
	if !site.IssuerServers {
		return &Unavailable{Fault: f.name, Needs: NeedIssuerServers}
	}
	return nil
}

// AttachIssuer implements IssuerAttacher.
func (f *issuerFault) AttachIssuer(s *SharedIssuer) { f.issuer = s }

// Pause implements Pauser: the first worker at its pause point in the
// fault phase causes the fault's first outage (and waits through it);
// every worker waits while the server of a first outage is down.
func (f *issuerFault) Pause(ctx context.Context, env Env, _ PausePoint) {
	s := f.issuer
	if s == nil {
		return // Act reports it
	}
	if f.phase.Load() && f.first.CompareAndSwap(false, true) && s.reserve(ctx, env, true) {
		f.act(ctx, env, true)
		s.release()
	}
	s.holdWhileDown(ctx)
}

// Act implements Actor: outages at random intervals while active, once
// the first has begun. An interval in which an outage began (this
// fault's first, or the other issuer fault's) passes without one, and an
// outage that would have to wait for another server to come back is
// skipped: the issuer stays whole at least as long as it was down.
func (f *issuerFault) Act(ctx context.Context, env Env) {
	if f.issuer == nil {
		env.Fail(fmt.Errorf("%s fault: the run handed it no issuer servers", f.name))
		return
	}
	f.phase.Store(true)
	every := f.Every
	if every <= 0 {
		every = 3 * env.LeaseTTL()
	}
	rt, s := env.Runtime(), f.issuer
	for ctx.Err() == nil {
		mark := s.outages.Load()
		wait := time.Duration((0.5+env.Float64())*float64(every)) + time.Duration(f.lastOut.Load())
		if rt.Sleep(ctx, wait) != nil {
			return
		}
		if !f.Active() || !f.first.Load() || s.outages.Load() != mark || s.tryReserve(env, false) != nil {
			continue
		}
		ok := f.act(ctx, env, false)
		s.release()
		if !ok {
			return
		}
	}
}

// act takes one server down and brings it back, recording the outage and
// every leader change it sees; it reports whether the issuer is whole
// again (false also when the fault phase ended before it began). The
// caller has reserved the outage.
func (f *issuerFault) act(ctx context.Context, env Env, first bool) bool {
	s, rt := f.issuer, env.Runtime()
	if rt.Sleep(ctx, 0) != nil {
		return false // the fault phase ended while another server was down
	}
	s.outages.Add(1)
	began := rt.Now()
	leader := s.servers.Leader(ctx)
	if leader < 0 && first && len(s.names) > 1 { // a single server has none to wait for
		leader = s.awaitLeader(ctx, env, -1)
	}
	target := f.pick(env, leader, first)
	name := s.names[target]
	if err := f.outage.down(s.servers, target); err != nil {
		// No outage took place, so none is recorded: the server is gone.
		env.Fail(fmt.Errorf("%s fault: no live %s to act on: %w", f.name, name, err))
		return false
	}
	role := "a follower; " + s.leads(leader)
	switch {
	case target == leader:
		role = "the leader"
	case len(s.names) == 1:
		role = "the issuer's only server"
	}
	record(env, f.name, histories.FBegin, fmt.Sprintf("%s to %s (%s)", f.outage.signal, name, role))
	now := leader
	if _, promotes := s.servers.(lease.FailingOver); target == leader && !promotes {
		// A primary with a replica elects no successor: only
		// issuer-failover promotes one.
		if next := s.awaitLeader(ctx, env, target); next >= 0 {
			f.recordLeader(env, next, now)
			now = next
		}
	}
	down := f.Down
	if down <= 0 {
		down = env.LeaseTTL()
	}
	_ = rt.Sleep(ctx, time.Duration(env.Float64()*float64(2*down))) // ends early with the fault phase
	// The server comes back even if the fault phase ended meanwhile.
	if err := f.outage.up(context.WithoutCancel(ctx), s.servers, target); err != nil {
		record(env, f.name, histories.FEnd, fmt.Sprintf("%s did not come back: %v", name, err))
		env.Fail(fmt.Errorf("%s fault: %s could not %s after %s: %w", f.name, name, f.outage.upCall, f.outage.signal, err))
		return false
	}
	if after := s.servers.Leader(ctx); after >= 0 && after != now {
		f.recordLeader(env, after, now)
		now = after
	}
	took := time.Duration(rt.Now() - began)
	f.lastOut.Store(int64(took))
	record(env, f.name, histories.FEnd, fmt.Sprintf("%s %s after %v; %s", name, f.outage.back, took.Round(time.Millisecond), s.leads(now)))
	return true
}

// pick chooses the server to take down: the leader for the first outage
// and with probability LeaderShare after it, else a follower at random.
func (f *issuerFault) pick(env Env, leader int, first bool) int {
	n := len(f.issuer.names)
	if leader >= 0 && (first || n == 1 || env.Float64() < f.LeaderShare) {
		return leader
	}
	if leader < 0 {
		return env.IntN(n)
	}
	i := env.IntN(n - 1)
	if i >= leader {
		i++
	}
	return i
}

// recordLeader records that server now leads where was (-1: none) did
// before: a leader change, which coverage counts.
func (f *issuerFault) recordLeader(env Env, now, was int) {
	before := "none answered as the leader before"
	if was >= 0 {
		before = "was " + f.issuer.names[was]
	}
	record(env, f.name, histories.FLeader, fmt.Sprintf("the leader is now %s (%s)", f.issuer.names[now], before))
}

// IssuerExtra is the issuer faults as Parse's extras take them.
func IssuerExtra() Extra {
	return Extra{Names: []string{"issuer-kill", "issuer-pause", "issuer-clock", "issuer-failover", "issuer-restore", "issuer-restore-bumped"}, New: func(name string) (Fault, bool) {
		switch name {
		case "issuer-failover":
			return NewIssuerFailover(), true
		case "issuer-kill":
			return NewIssuerKill(), true
		case "issuer-pause":
			return NewIssuerPause(), true
		case "issuer-clock":
			return NewIssuerClock(), true
		case "issuer-restore":
			return NewIssuerRestore(), true
		case "issuer-restore-bumped":
			return NewIssuerRestoreBumped(), true
		}
		return nil, false
	}}
}
