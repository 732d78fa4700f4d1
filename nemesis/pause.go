package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// Pause holds a worker at its pause point, after it prepared its write.
//
// Most pauses are targeted, the article's failure: the pause outlasts the
// worker's lease, which ends (the scheduler reassigns it), and the worker
// is held until a newer owner of the resource has written with a higher
// token; only then does it resume and submit its stale write. The others
// are random pauses of up to two lease TTLs, which sometimes outlast the
// lease and sometimes do not.
//
// How a targeted pause's lease ends depends on the lease service. Where
// the lease is renewed by a keepalive beside the worker (etcd) or runs
// out by its TTL on the issuer (Redis, PostgreSQL), the paused worker
// stops renewing it and the pause waits until the issuer has ended it by
// its TTL, an event the service records when the issuer says so
// (Env.LapseLease); an issuer that has not ended it within its bound
// gets it revoked. The run's own lease service (lease.Local) ends it at
// once instead, as a revocation (Env.OutliveLease): its deterministic
// runs keep their histories. Either way the stale write is a consequence
// of events, not of timing.
type Pause struct {
	toggle
	// Probability that a worker reaching its pause point is paused.
	Probability float64
	// Targeted is the share of pauses that wait for a newer owner.
	Targeted float64
}

// NewPause returns the pause fault with its defaults.
func NewPause() *Pause {
	return &Pause{toggle: toggle{name: "pause"}, Probability: 0.5, Targeted: 0.8}
}

// Pause implements Pauser.
func (p *Pause) Pause(ctx context.Context, env Env, pp PausePoint) {
	if !p.Active() || env.Float64() >= p.Probability {
		return
	}
	rt := env.Runtime()
	ttl := env.LeaseTTL()
	if env.Float64() < p.Targeted {
		record(env, p.name, histories.FBegin, fmt.Sprintf("worker %d (process %d) paused holding token %d on %s until a newer owner writes", pp.Worker, pp.Process, pp.Token, pp.Resource))
		done := env.Holding(pp.Worker)
		defer done()
		// The pause outlasts the lease, so the newer owner comes whatever
		// the machine's speed.
		p.outlive(ctx, env, pp)
		// Bounded, so that a resource nobody else wants does not hold
		// the worker forever.
		ok := env.NewerAccepted(pp.Resource, pp.Token).Wait(ctx, 8*ttl)
		outcome := "a newer owner wrote; resuming with the stale token"
		if !ok {
			outcome = "no newer owner wrote in time; resuming"
		}
		record(env, p.name, histories.FEnd, fmt.Sprintf("worker %d resumes: %s", pp.Worker, outcome))
		return
	}
	d := time.Duration(env.Float64() * float64(2*ttl))
	record(env, p.name, histories.FBegin, fmt.Sprintf("worker %d (process %d) paused for %v holding token %d on %s", pp.Worker, pp.Process, d, pp.Token, pp.Resource))
	_ = rt.Sleep(ctx, d)
	record(env, p.name, histories.FEnd, fmt.Sprintf("worker %d resumes", pp.Worker))
}

// outlive ends the paused worker's lease: by its TTL on the issuer when
// the lease service can let it lapse, at once otherwise.
func (p *Pause) outlive(ctx context.Context, env Env, pp PausePoint) {
	ended, within, ok := env.LapseLease(pp.Resource, pp.Token)
	if ok && ended.Wait(ctx, within) {
		return
	}
	env.OutliveLease(pp.Resource, pp.Token)
}

// MakesStaleWrites implements StaleWriter.
func (*Pause) MakesStaleWrites() {}
