package nemesis

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// IssuerFailover fails the token issuer over to a replica that had not
// seen the last grants: on an issuer that keeps a replica
// (lease.FailingOver: redis?replicas=1), it makes the replica fall behind
// (its replication link held) as soon as the fault phase begins, lets the
// primary issue Grants tokens while workers go on taking leases, then
// kills the primary, promotes the replica and moves the issuer to it.
// The failover comes on that event, the Grants-th token, never after a
// time: a slow machine delays it, and changes nothing of what it tests.
//
// Where replication is asynchronous, the promoted replica's counters are
// below tokens already handed out, and it hands them out again: the issuer
// check reports the repeated token, after this fault's leader change.
// Where every grant waits for the replica (redis?replicas=1&wait=1), the
// tokens issued while it was behind were refused, not handed out, and the
// sequence holds; the fault's end event says how many were refused.
//
// It acts once per run. While the primary is killed and the replica
// promoted, workers at their pause point wait (as the first outage of
// issuer-kill holds them), so that the run's remaining work, and so its
// next grants, come after the failover.
type IssuerFailover struct {
	toggle
	issuer *SharedIssuer
	// Grants is how many tokens the primary issues while the replica is
	// behind before the failover; default 3.
	Grants int
	acted  atomic.Bool
}

// NewIssuerFailover returns the issuer-failover fault; the harness
// attaches the run's issuer servers to it.
func NewIssuerFailover() *IssuerFailover {
	return &IssuerFailover{toggle: toggle{name: "issuer-failover"}, Grants: 3}
}

// Available implements Fault: the fault acts on servers fencecheck
// started itself.
func (f *IssuerFailover) Available(site Site) error {
	if !site.IssuerServers {
		return &Unavailable{Fault: f.name, Needs: NeedIssuerServers}
	}
	return nil
}

// AttachIssuer implements IssuerAttacher.
func (f *IssuerFailover) AttachIssuer(s *SharedIssuer) { f.issuer = s }

// CanAct implements IssuerChecker: the issuer must keep a replica it can
// hold behind and promote, and count the tokens issued meanwhile.
func (f *IssuerFailover) CanAct(s lease.Servers) error {
	_, fails := s.(lease.FailingOver)
	_, holds := s.(lease.ReplicaHolder)
	_, counts := s.(lease.IssueCounter)
	if !fails || !holds || !counts {
		return errNoReplica
	}
	return nil
}

var errNoReplica = errors.New("issuer-failover needs an issuer that can hold its replica behind, count the tokens its primary issues meanwhile and fail over (today only a private redis-server with replicas=1)")

// Pause implements Pauser: a worker waits while the failover is under way.
func (f *IssuerFailover) Pause(ctx context.Context, _ Env, _ PausePoint) {
	if f.issuer != nil {
		f.issuer.holdWhileDown(ctx)
	}
}

// Act implements Actor: the one failover of the run.
func (f *IssuerFailover) Act(ctx context.Context, env Env) {
	s := f.issuer
	if s == nil {
		env.Fail(fmt.Errorf("%s fault: the run handed it no issuer servers", f.name))
		return
	}
	if err := f.CanAct(s.servers); err != nil {
		env.Fail(fmt.Errorf("%s fault: %w", f.name, err))
		return
	}
	fo, holder, counter := s.servers.(lease.FailingOver), s.servers.(lease.ReplicaHolder), s.servers.(lease.IssueCounter)
	if !f.acted.CompareAndSwap(false, true) || !s.reserve(ctx, env, false) {
		return
	}
	defer s.release()
	n := max(1, f.Grants)
	primary := s.servers.Leader(ctx)
	if primary < 0 || len(s.names) != 2 {
		env.Fail(fmt.Errorf("%s fault: the issuer has no primary and replica (%d servers, primary %d)", f.name, len(s.names), primary))
		return
	}
	held, err := holder.HoldReplica(ctx)
	if err != nil {
		env.Fail(fmt.Errorf("%s fault: hold the replica behind: %w", f.name, err))
		return
	}
	s.outages.Add(1)
	record(env, f.name, histories.FBegin, fmt.Sprintf("%s; failover once %s issued %d more tokens", held, s.names[primary], n))
	issued := env.Runtime().NewGate()
	counter.AfterIssued(n, issued.Open)
	// Waited for in slices, so that a simulated clock sees the fault
	// phase end: its gates do not watch ctx. The slices bound nothing.
	for !issued.Wait(ctx, leaderWait) {
		if ctx.Err() != nil {
			return // the fault phase ended first: no failover, and no end to record
		}
	}
	s.holdWorkers()
	// Recorded before the failover, so that it comes before every grant
	// of the promoted replica, which the issuer check names it after.
	record(env, f.name, histories.FLeader, fmt.Sprintf("the leader is now %s: %s SIGKILLed and %s promoted in its place",
		s.names[1-primary], s.names[primary], s.names[1-primary]))
	said, err := fo.Failover(context.WithoutCancel(ctx))
	if err != nil {
		record(env, f.name, histories.FEnd, fmt.Sprintf("the failover failed: %v", err))
		env.Fail(fmt.Errorf("%s fault: %w", f.name, err))
		return
	}
	record(env, f.name, histories.FEnd, "failover: "+said)
}
