package workload

import (
	"context"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/sched"
)

// keepRenewing starts, for the Renew strategy, a task that renews h's
// lease every RenewEvery until the returned stop is called; stop waits
// for the task to end, so that no renewal follows the job. Other
// strategies renew nothing.
//
// The renewal falls due by the worker's own clock: it renews when, by
// that clock, its lease has the TTL less RenewEvery left. A worker whose
// clock runs ClockSkew behind the issuer's believes its lease has
// ClockSkew more time left than it has, so each renewal comes ClockSkew
// late on the issuer's clock; once RenewEvery + ClockSkew passes the
// TTL, the lease runs out on the issuer between renewals while its
// holder still writes as its owner, until a renewal fails. The skew is
// an offset added to each wait, so that a deterministic run with it
// repeats byte for byte.
//
// A worker held at its pause point does not renew: a paused process
// cannot ("A paused process cannot renew or observe its own loss"). The
// renewal that falls due during the pause is sent when the worker
// resumes, which is when a stopped process's timer fires; the worker
// itself goes straight on to its write. A renewal that fails, for
// whatever reason, tells the worker its lease is gone, and the task
// stops.
func (p *Pool) keepRenewing(ctx context.Context, h *holding) (stop func()) {
	if p.cfg.Strategy != Renew {
		return func() {}
	}
	r := p.Leases.(lease.Renewer) // CheckStrategy made sure
	done := p.Runtime.NewGate()
	g := sched.NewGroup(p.Runtime)
	g.Go(func() {
		for {
			if done.Wait(ctx, p.cfg.RenewEvery+p.cfg.ClockSkew) || ctx.Err() != nil {
				return
			}
			if resumed := h.pausedGate(); resumed != nil {
				resumed.Wait(ctx, 0)
			}
			if err := r.Renew(ctx, h.lease); err != nil {
				h.setLost()
				return
			}
		}
	})
	return func() {
		done.Open()
		g.Wait(context.Background(), 0)
	}
}
