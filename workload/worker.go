package workload

import (
	"context"
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/nemesis"
)

// work is the article's job loop: acquire a lease, read the input, prepare a
// result with a unique value, stop at the pause point, write with the
// token, sometimes write again with the same token, release. The
// strategy adds its own steps (see Strategy).
func (p *Pool) work(ctx context.Context, w *worker) {
	// Stagger the start so workers do not move in lockstep.
	if p.Runtime.Sleep(ctx, time.Duration(p.Rand.Float64()*float64(p.cfg.Think))) != nil {
		return
	}
	for p.more(ctx) {
		resource, b := p.pick()
		repeat := func() bool { return p.Rand.Float64() < p.cfg.RepeatShare }
		if _, err := p.oneJob(ctx, w, resource, b, repeat); err != nil {
			if b != nil {
				p.leave(b)
			}
			return
		}
		if p.Rand.Float64() < p.cfg.ReadShare && p.more(ctx) {
			p.read(ctx, &w.proc, p.cfg.Resources[p.Rand.IntN(len(p.cfg.Resources))])
		}
	}
}

// oneJob takes the lease on resource, does the job and releases the
// lease; repeat, asked after the job's write, says whether it writes
// again with the same token; b is the burst the job was recruited for,
// or nil. It fails only when the lease could not be had.
func (p *Pool) oneJob(ctx context.Context, w *worker, resource string, b *burst, repeat func() bool) (Job, error) {
	asked := p.Runtime.Now()
	l, err := p.Leases.Acquire(ctx, resource, w.id)
	if err != nil {
		return Job{}, err
	}
	now := p.Runtime.Now()
	j := Job{Worker: w.id, Resource: l.Resource, Token: l.Token, Asked: asked, Granted: now, PausedFrom: now, PausedTo: now}
	p.job(ctx, w, l, &j, b, repeat)
	j.Ended = p.Runtime.Now()
	p.jobs.add(j)
	p.Leases.Release(l)
	return j, nil
}

// RunJob runs one job of worker id on resource, exactly as the workers'
// loop runs each of theirs but at the caller's moment, so that a script
// can place the jobs of its timeline (the replay does); repeat says
// whether the job writes a second time with the same token. It needs no
// Start, and its job is among Jobs.
func (p *Pool) RunJob(ctx context.Context, id int, resource string, repeat bool) (Job, error) {
	return p.oneJob(ctx, &worker{id: id, proc: id}, resource, nil, func() bool { return repeat })
}

func (p *Pool) job(ctx context.Context, w *worker, l lease.Lease, j *Job, b *burst, repeat func() bool) {
	joined := late
	if b != nil {
		defer func() {
			if joined == late {
				p.leave(b) // no longer waited for; a no-op once it closed
			}
		}()
	}
	if !p.more(ctx) {
		return
	}
	h := &holding{lease: l}
	stop := p.keepRenewing(ctx, h)
	defer stop()
	p.read(ctx, &w.proc, l.Resource)
	value := w.value(p.cfg.ValuePrefix)
	w.jobs++
	if p.Runtime.Sleep(ctx, time.Duration((0.5+p.Rand.Float64())*float64(p.cfg.Think))) != nil {
		return
	}
	if !p.stillHeld(ctx, h) {
		j.Abandoned = true
		return
	}
	pp := nemesis.PausePoint{Worker: w.id, Process: w.proc, Resource: l.Resource, Token: l.Token}
	j.PausedFrom = p.Runtime.Now()
	h.pause(p.Runtime.NewGate())
	if b != nil {
		// A burst's barrier stands where the faults would hold the
		// worker: its members are held by the burst, not by them.
		joined = p.join(ctx, b, func() { p.Leases.Release(l) })
	}
	if joined == late {
		for _, f := range p.Pausers {
			f.Pause(ctx, p.Env, pp)
		}
	}
	h.resume()
	j.PausedTo = p.Runtime.Now()
	wrote := p.write(ctx, w, l.Resource, l.Token, value, p.holds.owes(w.id))
	if wrote {
		j.Wrote, j.Answered = true, p.Runtime.Now()
	}
	if joined != late {
		p.answeredOne(b)
		if joined == closer {
			// The next job on the resource reads what the burst left.
			b.all.Wait(ctx, p.cfg.OpTimeout)
		}
	}
	if repeat() && p.more(ctx) {
		if p.write(ctx, w, l.Resource, l.Token, value+"-again", false) {
			j.Answered = p.Runtime.Now()
		}
	}
}

// stillHeld is the strategy's last look at its lease before the pause
// point: Renew knows its lease is gone once a renewal failed,
// CheckBeforeWrite asks the issuer (a round trip), the others do not
// look. An issuer that cannot answer the check counts as a lost lease.
func (p *Pool) stillHeld(ctx context.Context, h *holding) bool {
	switch p.cfg.Strategy {
	case Renew:
		return !h.isLost()
	case CheckBeforeWrite:
		p.latency(ctx)
		held, err := p.Leases.(lease.HolderChecker).Held(ctx, h.lease) // CheckStrategy made sure
		p.latency(ctx)
		return err == nil && held && ctx.Err() == nil
	}
	return true
}

// more reports whether workers should start another operation.
func (p *Pool) more(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	if p.cfg.Duration > 0 && time.Duration(p.Runtime.Now()) >= p.cfg.Duration {
		return false
	}
	return p.cfg.Ops == 0 || p.issued.Load() < int64(p.cfg.Ops) || p.holds.holding()
}

// take reserves one operation of the budget and waits for the rate
// limit. The budget does not refuse an operation while a hold lasts, nor
// an owed one: the write of a worker that was held at its pause point
// (see holds).
func (p *Pool) take(owed bool) bool {
	if p.cfg.Ops > 0 && p.issued.Add(1) > int64(p.cfg.Ops) && !owed && !p.holds.holding() {
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
