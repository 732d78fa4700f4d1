package workload

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
)

// work is the article's job loop: acquire a lease, read the input, prepare a
// result with a unique value, stop at the pause point, write with the
// token, sometimes write again with the same token, release.
func (p *Pool) work(ctx context.Context, w *worker) {
	// Stagger the start so workers do not move in lockstep.
	if p.Runtime.Sleep(ctx, time.Duration(p.Rand.Float64()*float64(p.cfg.Think))) != nil {
		return
	}
	for p.more(ctx) {
		resource := p.cfg.Resources[p.Rand.IntN(len(p.cfg.Resources))]
		l, err := p.Leases.Acquire(ctx, resource, w.id)
		if err != nil {
			return
		}
		p.job(ctx, w, l)
		p.Leases.Release(l)
		if p.Rand.Float64() < p.cfg.ReadShare && p.more(ctx) {
			p.read(ctx, &w.proc, p.cfg.Resources[p.Rand.IntN(len(p.cfg.Resources))])
		}
	}
}

func (p *Pool) job(ctx context.Context, w *worker, l lease.Lease) {
	if !p.more(ctx) {
		return
	}
	p.read(ctx, &w.proc, l.Resource)
	value := fmt.Sprintf("%sw%d-j%d", p.cfg.ValuePrefix, w.id, w.jobs)
	w.jobs++
	if p.Runtime.Sleep(ctx, time.Duration((0.5+p.Rand.Float64())*float64(p.cfg.Think))) != nil {
		return
	}
	pp := nemesis.PausePoint{Worker: w.id, Process: w.proc, Resource: l.Resource, Token: l.Token}
	for _, f := range p.Pausers {
		f.Pause(ctx, p.Env, pp)
	}
	p.write(ctx, w, l.Resource, l.Token, value)
	if p.Rand.Float64() < p.cfg.RepeatShare && p.more(ctx) {
		p.write(ctx, w, l.Resource, l.Token, value+"-again")
	}
}

// more reports whether workers should start another operation.
func (p *Pool) more(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if p.cfg.Duration > 0 && time.Duration(p.Runtime.Now()) >= p.cfg.Duration {
		return false
	}
	return p.cfg.Ops == 0 || p.issued.Load() < int64(p.cfg.Ops)
}

// take reserves one operation of the budget and waits for the rate limit.
func (p *Pool) take() bool {
	if p.cfg.Ops > 0 && p.issued.Add(1) > int64(p.cfg.Ops) {
		return false
	}
	if p.cfg.Rate > 0 {
		p.pace()
	}
	return true
}

// pace spaces operations 1/Rate apart across all workers.
func (p *Pool) pace() {
	interval := time.Duration(float64(time.Second) / p.cfg.Rate)
	p.paceMu.Lock()
	now := p.Runtime.Now()
	slot := max(now, p.nextSlot)
	p.nextSlot = slot + int64(interval)
	p.paceMu.Unlock()
	_ = p.Runtime.Sleep(context.Background(), time.Duration(slot-now))
}
