package tcpproxy

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Hold keeps a chosen chunk from the client (a request) in the proxy
// until the receiver has answered a client on another connection, then
// delivers it: another request overtook this one, as a congested or
// rerouted network lets it. The client's later bytes on the connection
// wait behind it. The bound is For, or eight lease TTLs in a run.
//
// Unlike nemesis/proxy's hold it cannot wait for a newer token on the
// same resource (it does not know which resource the bytes name), nor end
// the writer's lease: it reorders requests, and a write held past its
// lease becomes stale only when the lease also ends meanwhile (combine it
// with pause or expire).
type Hold struct {
	fault
	// For bounds a hold when no other answer comes; default 100ms
	// without a run (eight lease TTLs in one).
	For time.Duration
}

// NewHold returns the hold toxic with its defaults.
func NewHold() *Hold {
	return &Hold{fault: fault{Switch: toxic.Switch{FaultName: NameHold, Needs: nemesis.NeedTCPProxy}, Probability: 0.2}, For: 100 * time.Millisecond}
}

// Pipe implements Toxic.
func (h *Hold) Pipe(ctx context.Context, c *Conn, ch *Chunk) Verdict {
	if ch.Dir != Up || !h.Chosen(ch, true) {
		return Forward
	}
	bound := h.For
	if env := h.Env(); env != nil {
		bound = 8 * env.LeaseTTL()
		done := env.Holding(-1) // the run goes on while the bytes are held
		defer done()
	}
	answered, stop := c.AnsweredElsewhere()
	defer stop()
	h.Record(histories.FBegin, fmt.Sprintf("holding %s until another connection's answer overtakes it", ch))
	released, held := h.Runtime().NewGate(), make(chan struct{})
	defer close(held)
	go func() {
		select {
		case <-answered:
			released.Open()
		case <-held:
		}
	}()
	why := "another connection was answered first"
	if !released.Wait(ctx, bound) {
		why = fmt.Sprintf("no other answer within %v", bound)
	}
	h.Record(histories.FEnd, fmt.Sprintf("delivering %s late: %s", ch, why))
	return Forward
}
