package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// grantAfterRestart crashes the issuer's server (its leader, when it has
// one) between grants on one resource and starts it again: the grants
// after the restart must carry tokens above every grant before it. An
// issuer whose sequence is only as durable as what its server had
// written to disk (Redis without appendfsync always) grants a token
// again.
var grantAfterRestart = issuerScenario{
	name:   "grant-after-restart",
	hazard: "the issuer's server crashes (SIGKILL) and restarts between grants: no token granted again",
	run: func(ctx context.Context, b *issuerScript) Row {
		n := b.o.RestartGrants
		expected := fmt.Sprintf("%d grants, the issuer's server SIGKILLed and started again, %d more: each token above every earlier one", n, n)
		s, ok := b.svc.(lease.Servers)
		if !ok {
			return Row{Expected: expected, Observed: "skipped: the issuer has no server fencecheck started itself to crash (local, or a server given by its address)", Result: Skip}
		}
		r := b.resource()
		before, err := b.grants(ctx, r, n)
		if err != nil {
			return failed(expected, fmt.Sprintf("grant %d", len(before)+1), err)
		}
		victim := max(s.Leader(ctx), 0)
		name := s.Servers()[victim]
		if err := b.crash(ctx, s, victim); err != nil {
			return failed(expected, fmt.Sprintf("tokens %s; crash and restart %s", spanOf(before), name), err)
		}
		after, err := b.grants(ctx, r, n)
		said := fmt.Sprintf("tokens %s, then %s after %s was SIGKILLed and started again", spanOf(before), spanOf(after), name)
		if why := sequence(append(before, after...)); why != "" {
			return Row{Expected: expected, Observed: why + ": " + said, Result: Fail}
		}
		if err != nil {
			return notJudged(expected, fmt.Sprintf("%s; grant %d after it", said, len(after)+1), err)
		}
		return Row{Expected: expected, Observed: said, Result: Pass}
	},
}

// grantAfterFailover crashes the leader of an issuer that has one among
// three or more servers, takes grants from the others while it is down,
// and starts it again: every grant, before, during and after, must carry
// a token above every earlier one. A leader elected with a log behind the
// old one's (an asynchronous replica promoted) grants a token again.
var grantAfterFailover = issuerScenario{
	name:   "grant-after-failover",
	hazard: "the issuer's leader crashes: the others grant while it is down, then it rejoins; no token granted again",
	run: func(ctx context.Context, b *issuerScript) Row {
		n := b.o.RestartGrants
		expected := fmt.Sprintf("%d grants, the leader SIGKILLed, %d grants from the others, the leader started again, %d more: each token above every earlier one", n, n, n)
		s, ok := b.svc.(lease.Servers)
		if !ok || len(s.Servers()) < 3 {
			return Row{Expected: expected, Observed: "skipped: the issuer has no leader among 3 or more servers of its own to fail over (local, a server given by its address, or a single server)", Result: Skip}
		}
		leader := s.Leader(ctx)
		if leader < 0 {
			return Row{Expected: expected, Observed: "skipped: no server of the issuer answers as its leader", Result: Skip}
		}
		name := s.Servers()[leader]
		r := b.resource()
		before, err := b.grants(ctx, r, n)
		if err != nil {
			return failed(expected, fmt.Sprintf("grant %d", len(before)+1), err)
		}
		b.mark(histories.FBegin, "SIGKILL "+name+", the leader")
		if err := s.Kill(leader); err != nil {
			return failed(expected, fmt.Sprintf("tokens %s; SIGKILL %s", spanOf(before), name), err)
		}
		during, err := b.grants(ctx, r, n)
		next := "none answered as the leader"
		if l := s.Leader(ctx); l >= 0 {
			next = s.Servers()[l] + " led"
		}
		if err != nil {
			_ = s.Start(ctx, leader)
			return failed(expected, fmt.Sprintf("tokens %s, then %s SIGKILLed (%s); grant %d while it was down", spanOf(before), name, next, len(during)+1), err)
		}
		if err := s.Start(ctx, leader); err != nil {
			return failed(expected, fmt.Sprintf("tokens %s, then %s while %s was down; start it again", spanOf(before), spanOf(during), name), err)
		}
		b.mark(histories.FEnd, name+" started again and serves")
		after, err := b.grants(ctx, r, n)
		said := fmt.Sprintf("tokens %s before %s (the leader) was SIGKILLed, %s while it was down (%s), %s after it rejoined",
			spanOf(before), name, spanOf(during), next, spanOf(after))
		if why := sequence(append(append(before, during...), after...)); why != "" {
			return Row{Expected: expected, Observed: why + ": " + said, Result: Fail}
		}
		if err != nil {
			return notJudged(expected, fmt.Sprintf("%s; grant %d after it rejoined", said, len(after)+1), err)
		}
		return Row{Expected: expected, Observed: said, Result: Pass}
	},
}

// notJudged is the row of a scenario whose issuer, restarted and serving
// again, granted no more within the grant's deadline: a server slow to
// take requests after its restart (a JVM warming up on a loaded machine)
// has not granted a token twice, and the sequence across the restart
// was not seen. The tokens it granted were judged first; the row is not
// run, so the battery is inconclusive, not passed and not failed.
func notJudged(expected, what string, err error) Row {
	return Row{Expected: expected, Observed: fmt.Sprintf("not judged: %s: %s", what, short(err)), Result: Skip, NotRun: true}
}

// grants takes n successive grants on resource, by alternating workers;
// on an error it returns the tokens granted so far.
func (b *issuerScript) grants(ctx context.Context, resource string, n int) ([]uint64, error) {
	var tokens []uint64
	for i := range n {
		t, err := b.grant(ctx, resource, i%2)
		if err != nil {
			return tokens, err
		}
		tokens = append(tokens, t)
	}
	return tokens, nil
}

// crash SIGKILLs server i and starts it again, recording both as the
// scenario's fault action.
func (b *issuerScript) crash(ctx context.Context, s lease.Servers, i int) error {
	name := s.Servers()[i]
	b.mark(histories.FBegin, "SIGKILL "+name)
	if err := s.Kill(i); err != nil {
		return err
	}
	if err := s.Start(ctx, i); err != nil {
		return err
	}
	b.mark(histories.FEnd, name+" started again and serves")
	return nil
}

// spanOf words tokens compactly: "1 to 5", or the one token.
func spanOf(tokens []uint64) string {
	switch len(tokens) {
	case 0:
		return "none"
	case 1:
		return fmt.Sprint(tokens[0])
	}
	return fmt.Sprintf("%d to %d", tokens[0], tokens[len(tokens)-1])
}
