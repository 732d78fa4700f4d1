package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// Delay holds a write that has already left the worker and delivers it to
// the resource late: the article's request "already traveling to storage".
// It holds in one of three ways, chosen at random for each delayed write:
//
//   - until a newer token has been accepted on the resource: the old token
//     arrives after the newer one, and fencing must reject it;
//   - until a newer token is sent to the resource: the two race, and the
//     old one arrives just before or just after the newer one. Before is
//     the article's critical limit (fencing accepts it); a receiver that checks
//     and sets in two steps can lose the newer write here;
//   - for a random time up to two lease TTLs.
//
// In a receiver that compares and writes in two steps, it also holds a
// write between the two (HoldInWindow) until a newer token has been
// accepted: the stale write then lands on top of the newer one.
//
// The worker may give up waiting and record an unknown outcome while the
// write is still on its way.
type Delay struct {
	toggle
	Probability float64
}

// NewDelay returns the delay fault with its defaults.
func NewDelay() *Delay {
	return &Delay{toggle: toggle{name: "delay"}, Probability: 0.5}
}

// Deliver implements Deliverer.
func (d *Delay) Deliver(ctx context.Context, env Env, w Write, send Send) (histories.Outcome, error) {
	if !d.Active() || env.Float64() >= d.Probability {
		return send(ctx)
	}
	ttl := env.LeaseTTL()
	what := fmt.Sprintf("process %d's write of token %d to %s", w.Process, w.Token, w.Resource)
	switch env.IntN(3) {
	case 0:
		record(env, d.name, histories.FBegin, "holding "+what+" until a newer token is accepted")
		env.OutliveLease(w.Resource, w.Token) // the write outlasts the lease (see Env.OutliveLease)
		done := env.Holding(-1)
		env.NewerAccepted(w.Resource, w.Token).Wait(ctx, 8*ttl)
		done()
	case 1:
		record(env, d.name, histories.FBegin, "holding "+what+" until a newer token is sent")
		env.OutliveLease(w.Resource, w.Token)
		done := env.Holding(-1)
		env.NewerSent(w.Resource, w.Token).Wait(ctx, 8*ttl)
		done()
	default:
		hold := time.Duration(env.Float64() * float64(2*ttl))
		record(env, d.name, histories.FBegin, fmt.Sprintf("holding %s for %v", what, hold))
		_ = env.Runtime().Sleep(ctx, hold)
	}
	record(env, d.name, histories.FEnd, "delivering "+what)
	return send(ctx)
}

// HoldInWindow implements WindowHolder.
func (d *Delay) HoldInWindow(ctx context.Context, env Env, resource string, token uint64) {
	// Hold about half: if every write were held, the newer write would be
	// held too and the two would leave the window in their original order.
	if !d.Active() || env.Float64() >= 0.5 {
		return
	}
	what := fmt.Sprintf("the write of token %d to %s", token, resource)
	record(env, d.name, histories.FBegin, "holding "+what+" inside the receiver, between its check and its write, until a newer token is accepted")
	env.OutliveLease(resource, token) // the held write outlasts its lease
	done := env.Holding(-1)
	defer done()
	env.NewerAccepted(resource, token).Wait(ctx, 8*env.LeaseTTL())
	record(env, d.name, histories.FEnd, "letting "+what+" finish")
}

// MakesStaleWrites implements StaleWriter.
func (*Delay) MakesStaleWrites() {}
