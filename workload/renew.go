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
			if done.Wait(ctx, p.cfg.RenewEvery) || ctx.Err() != nil {
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
