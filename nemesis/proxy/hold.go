package proxy

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Hold keeps a chosen write in the proxy and delivers it late. The write
// has left the worker; in a run it is held, at random, either until a
// newer token on its resource has been accepted (it arrives after the newer
// one, and fencing must reject it) or until a newer token is sent (the two
// race into the receiver, which is where a receiver that checks and sets
// in two steps loses the newer write). Scripted without a run it is held
// for For. The worker may give up waiting and record an unknown outcome
// while the write is still held.
type Hold struct {
	fault
	// For is how long a request is held when there is no run to wait on;
	// default 100ms.
	For time.Duration
}

// NewHold returns the hold toxic with its defaults.
func NewHold() *Hold {
	return &Hold{fault: fault{Switch: toxic.Switch{FaultName: "hold", Needs: nemesis.NeedHTTPProxy}, Probability: 0.3}, For: 100 * time.Millisecond}
}

// Pipe implements Toxic.
func (h *Hold) Pipe(ctx context.Context, r *Request, next Forward) (*Response, error) {
	if !h.Chosen(r, r.IsWrite()) {
		return next(ctx, r)
	}
	if env := h.Env(); env != nil && r.IsWrite() {
		env.OutliveLease(r.Resource, r.Token) // the held write outlasts its lease
		done := env.Holding(-1)
		if env.IntN(2) == 0 {
			h.Record(histories.FBegin, fmt.Sprintf("holding %s in the proxy until a newer token is accepted", r))
			env.NewerAccepted(r.Resource, r.Token).Wait(ctx, 8*env.LeaseTTL())
		} else {
			h.Record(histories.FBegin, fmt.Sprintf("holding %s in the proxy until a newer token is sent, to race it", r))
			env.NewerSent(r.Resource, r.Token).Wait(ctx, 8*env.LeaseTTL())
		}
		done()
	} else {
		h.Record(histories.FBegin, fmt.Sprintf("holding %s in the proxy for %v", r, h.For))
		h.Sleep(ctx, h.For)
	}
	h.Record(histories.FEnd, fmt.Sprintf("delivering %s late", r))
	return next(ctx, r)
}

// MakesStaleWrites implements nemesis.StaleWriter.
func (*Hold) MakesStaleWrites() {}
