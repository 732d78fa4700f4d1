package verify

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// clockJump jumps the issuer's wall clock forward past a lease it holds
// for a worker (lease.ClockJumper: a private redis-server under
// libfaketime) and asks for the resource again for another worker. An
// issuer whose leases are timeouts on its clock ends the lease at once,
// its holder not told, and grants it again: two holders of one lease,
// which no lease alone prevents. The scenario passes when the new grant's
// token is above the old one's, so that a receiver that fences still
// orders the two holders' writes; it says whether the lease ended early.
var clockJump = issuerScenario{
	name:   "clock-jump",
	hazard: "the issuer's clock jumps forward past a lease it holds: the lease ends early and is granted again; the new token above the old",
	run: func(ctx context.Context, b *issuerScript) Row {
		jump := max(2*b.o.TTL, time.Second).Round(time.Second)
		expected := fmt.Sprintf("a grant held, the issuer's clock jumped %v forward, the resource granted again: its token above the held one", jump)
		j, ok := b.svc.(lease.ClockJumper)
		if !ok {
			return Row{Expected: expected, Observed: "skipped: the issuer's clock is not one fencecheck can jump (only a private redis-server under libfaketime, the faketime package, is: local, a server given by its address, etcd and PostgreSQL are not)", Result: Skip}
		}
		r := b.resource()
		held, err := b.svc.Acquire(ctx, r, 0)
		if err != nil {
			return failed(expected, "the first grant", err)
		}
		defer b.svc.Release(held)
		b.mark(histories.FBegin, fmt.Sprintf("the issuer's clock jumps %v forward while worker 0 holds token %d", jump, held.Token))
		if err := j.JumpClock(ctx, jump); err != nil {
			return failed(expected, fmt.Sprintf("token %d held; jump the clock", held.Token), err)
		}
		b.mark(histories.FEnd, fmt.Sprintf("the issuer's clock reads %v ahead", jump))
		start := time.Now()
		again, err := b.svc.Acquire(ctx, r, 1)
		if err != nil {
			return failed(expected, fmt.Sprintf("token %d held, the clock jumped %v; grant it again", held.Token, jump), err)
		}
		defer b.svc.Release(again)
		waited := time.Since(start)
		after := fmt.Sprintf("%v after the jump", waited.Round(time.Millisecond))
		if waited < time.Millisecond {
			after = "within 1ms of the jump"
		}
		early := fmt.Sprintf("granted again %s, within the held lease's %v TTL: two holders of one lease", after, b.o.TTL)
		if waited >= b.o.TTL {
			early = fmt.Sprintf("granted again only %v after the jump, once the held lease's %v TTL had passed anyway", waited.Round(time.Millisecond), b.o.TTL)
		}
		said := fmt.Sprintf("token %d held, the clock jumped %v, token %d %s", held.Token, jump, again.Token, early)
		if why := sequence([]uint64{held.Token, again.Token}); why != "" {
			return Row{Expected: expected, Observed: why + ": " + said, Result: Fail}
		}
		return Row{Expected: expected, Observed: said, Result: Pass}
	},
}

// clockJumps reports whether issuer can open a service whose clock jumps
// (lease.ClockIssuer), for the clock-jump scenario; one that cannot
// opens as it always does, and the scenario says why it is skipped.
func clockJumps(issuer lease.Issuer) bool {
	ci, ok := issuer.(lease.ClockIssuer)
	return ok && ci.ClockJumps() == nil
}
