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

// CanAct implements IssuerChecker: the issuer must keep a replica.
func (f *IssuerFailover) CanAct(s lease.Servers) error {
	if _, ok := s.(lease.FailingOver); !ok {
		return errNoReplica
	}
	return nil
}

var errNoReplica = errors.New("issuer-failover needs an issuer with a replica to fail over to (a private redis-server with replicas=1)")

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
	fo, ok := s.servers.(lease.FailingOver)
	if !ok {
		env.Fail(fmt.Errorf("%s fault: %w", f.name, errNoReplica))
		return
	}
	if !f.acted.CompareAndSwap(false, true) || !s.reserve(ctx, env, false) {
		return
	}
	defer s.release()
	n := max(1, f.Grants)
	primary := s.servers.Leader(ctx)
	if primary < 0 {
		env.Fail(fmt.Errorf("%s fault: the issuer has no primary", f.name))
		return
	}
	replica := s.names[1-primary]
	issued := env.Runtime().NewGate()
	if err := fo.Detach(n, issued.Open); err != nil {
		env.Fail(fmt.Errorf("%s fault: %w", f.name, err))
		return
	}
	s.outages.Add(1)
	record(env, f.name, histories.FBegin, fmt.Sprintf("replication to %s (the replica) held: it receives none of %s's writes; failover once %s issued %d more tokens",
		replica, s.names[primary], s.names[primary], n))
	// Waited for in slices, so that a simulated clock sees the fault
	// phase end: its gates do not watch ctx. The slices bound nothing.
	for !issued.Wait(ctx, leaderWait) {
		if ctx.Err() != nil {
			return // the fault phase ended first: no failover, and no end to record
		}
	}
	s.holdWorkers()
	out, err := fo.Failover(context.WithoutCancel(ctx), func(out lease.Failover) {
		record(env, f.name, histories.FLeader, fmt.Sprintf("the leader is now %s, promoted with %s after %s was SIGKILLed",
			out.Promoted, out.How, out.Primary))
	})
	if err != nil {
		record(env, f.name, histories.FEnd, fmt.Sprintf("the failover failed: %v", err))
		env.Fail(fmt.Errorf("%s fault: %w", f.name, err))
		return
	}
	record(env, f.name, histories.FEnd, fmt.Sprintf("failover: %s SIGKILLed, %s promoted (%s) and serves, %s back as its replica; %s",
		out.Primary, out.Promoted, out.How, out.Primary, lagged(out)))
}

// lagged words what became of the tokens issued while the replica was
// behind.
func lagged(f lease.Failover) string {
	handed := f.Issued - f.Refused
	switch {
	case f.Refused == 0:
		return fmt.Sprintf("the %d tokens %s issued while %s was behind were handed out, and %s never received them", f.Issued, f.Primary, f.Promoted, f.Promoted)
	case handed == 0:
		return fmt.Sprintf("the %d tokens %s issued while %s was behind were refused, not handed out: no replica acknowledged them", f.Issued, f.Primary, f.Promoted)
	}
	return fmt.Sprintf("of the %d tokens %s issued while %s was behind, %d were handed out and %d refused (no replica acknowledged them)", f.Issued, f.Primary, f.Promoted, handed, f.Refused)
}
