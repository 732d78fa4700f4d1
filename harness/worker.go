package harness

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/nemesis"
)

// work is the seed's job loop: acquire a lease, read the input, prepare a
// result with a unique value, stop at the pause point, write with the
// token, sometimes write again with the same token, release.
func (r *run) work(ctx context.Context, w *worker) {
	// Stagger the start so workers do not move in lockstep.
	if r.rt.Sleep(ctx, time.Duration(r.rand.Float64()*float64(r.cfg.Think))) != nil {
		return
	}
	for r.more(ctx) {
		resource := r.resources[r.rand.IntN(len(r.resources))]
		lease, err := r.leases.Acquire(ctx, resource, w.id)
		if err != nil {
			return
		}
		r.job(ctx, w, lease)
		r.leases.Release(lease)
		if r.rand.Float64() < r.cfg.ReadShare && r.more(ctx) {
			r.read(ctx, &w.proc, r.resources[r.rand.IntN(len(r.resources))])
		}
	}
}

func (r *run) job(ctx context.Context, w *worker, lease Lease) {
	if !r.more(ctx) {
		return
	}
	r.read(ctx, &w.proc, lease.Resource)
	value := fmt.Sprintf("%sw%d-j%d", r.valuePrefix, w.id, w.jobs)
	w.jobs++
	if r.rt.Sleep(ctx, time.Duration((0.5+r.rand.Float64())*float64(r.cfg.Think))) != nil {
		return
	}
	pp := nemesis.PausePoint{Worker: w.id, Process: w.proc, Resource: lease.Resource, Token: lease.Token}
	for _, p := range r.pausers {
		p.Pause(ctx, r, pp)
	}
	r.write(ctx, w, lease.Resource, lease.Token, value)
	if r.rand.Float64() < r.cfg.RepeatShare && r.more(ctx) {
		r.write(ctx, w, lease.Resource, lease.Token, value+"-again")
	}
}

// more reports whether workers should start another operation.
func (r *run) more(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if r.cfg.Duration > 0 && time.Duration(r.rt.Now()) >= r.cfg.Duration {
		return false
	}
	return r.cfg.Ops == 0 || r.issued.Load() < int64(r.cfg.Ops)
}

// take reserves one operation of the budget and waits for the rate limit.
func (r *run) take() bool {
	if r.cfg.Ops > 0 && r.issued.Add(1) > int64(r.cfg.Ops) {
		return false
	}
	if r.cfg.Rate > 0 {
		r.pace()
	}
	return true
}

// pace spaces operations 1/Rate apart across all workers.
func (r *run) pace() {
	interval := time.Duration(float64(time.Second) / r.cfg.Rate)
	r.paceMu.Lock()
	now := r.rt.Now()
	slot := max(now, r.nextSlot)
	r.nextSlot = slot + int64(interval)
	r.paceMu.Unlock()
	_ = r.rt.Sleep(context.Background(), time.Duration(slot-now))
}
