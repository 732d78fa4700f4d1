package nemesis

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// Expire ends leases early, as a scheduler with a fast clock would, so that
// a lease is reassigned while its holder is still working: the new owner's
// write and the old owner's write then race to the resource.
type Expire struct {
	toggle
	// Every is the mean time between early expiries while active; the
	// default is a quarter of the lease TTL.
	Every time.Duration
}

// NewExpire returns the expire fault with its defaults.
func NewExpire() *Expire { return &Expire{toggle: toggle{name: "expire"}} }

// Act implements Actor: while active, expire a random resource's lease at
// random intervals.
func (x *Expire) Act(ctx context.Context, env Env) {
	every := x.Every
	if every <= 0 {
		every = env.LeaseTTL() / 4
	}
	rt := env.Runtime()
	for ctx.Err() == nil {
		if rt.Sleep(ctx, time.Duration(env.Float64()*float64(2*every))+1) != nil {
			return
		}
		if !x.Active() {
			continue
		}
		res := env.Resources()
		r := res[env.IntN(len(res))]
		if env.ExpireLease(r) {
			record(env, x.name, histories.FBegin, fmt.Sprintf("expired the lease on %s early", r))
			record(env, x.name, histories.FEnd, fmt.Sprintf("lease on %s reassigned to the next waiting worker", r))
		}
	}
}
