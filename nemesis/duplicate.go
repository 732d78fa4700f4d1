package nemesis

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// Duplicate delivers the same write twice, as a retrying proxy or a
// duplicated packet would. The worker sees the answer to the first copy;
// the second reaches the resource with the same token and value. A strict
// receiver rejects it; a receiver that accepts equal tokens applies it
// again, which is harmless only because the value is the same.
type Duplicate struct {
	toggle
	Probability float64
}

// NewDuplicate returns the duplicate fault with its defaults.
func NewDuplicate() *Duplicate {
	return &Duplicate{toggle: toggle{name: "duplicate"}, Probability: 0.3}
}

// Deliver implements Deliverer.
func (d *Duplicate) Deliver(ctx context.Context, env Env, w Write, send Send) (histories.Outcome, error) {
	if !d.Active() || env.Float64() >= d.Probability {
		return send(ctx)
	}
	out, err := send(ctx)
	record(env, d.name, histories.FBegin, fmt.Sprintf("delivering process %d's write of token %d to %s a second time", w.Process, w.Token, w.Resource))
	_, _ = send(ctx) // the copy's answer is lost, as on a network
	record(env, d.name, histories.FEnd, fmt.Sprintf("duplicate of token %d delivered", w.Token))
	return out, err
}
