package proxy

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
	"github.com/fencecheck/fencecheck/sched"
)

// Hold keeps a chosen write in the proxy and delivers it late. The write
// has left the worker; in a run it is held, drawn from the run's seed,
// until a newer token on its resource has been accepted (it arrives after
// the newer one, and fencing must reject it), until a newer token is sent
// (the two race into the receiver, which is where a receiver that checks
// and sets in two steps loses the newer write), or until another write
// for the same resource is in flight through the proxy, whatever its
// token: then both go on together, into the receiver's decision window at
// once. Scripted without a run it is held for For. The worker may give up
// waiting and record an unknown outcome while the write is still held.
type Hold struct {
	fault
	// For is how long a request is held when there is no run to wait on;
	// default 100ms.
	For time.Duration

	mu sync.Mutex
	// partners are the held writes waiting for another write to their
	// resource, by resource: the next one through the proxy opens them.
	partners map[string][]sched.Gate
}

// NewHold returns the hold toxic with its defaults.
func NewHold() *Hold {
	return &Hold{fault: fault{Switch: toxic.Switch{FaultName: "hold", Needs: nemesis.NeedHTTPProxy}, Probability: 0.3}, For: 100 * time.Millisecond}
}

// Pipe implements Toxic.
func (h *Hold) Pipe(ctx context.Context, r *Request, next Forward) (*Response, error) {
	if r.IsWrite() {
		h.arrived(r.Resource)
	}
	if !h.Chosen(r, r.IsWrite()) {
		return next(ctx, r)
	}
	if env := h.Env(); env != nil && r.IsWrite() {
		env.OutliveLease(r.Resource, r.Token) // the held write outlasts its lease
		done := env.Holding(-1)
		switch env.IntN(3) {
		case 0:
			h.Record(histories.FBegin, fmt.Sprintf("holding %s in the proxy until a newer token is accepted", r))
			env.NewerAccepted(r.Resource, r.Token).Wait(ctx, 8*env.LeaseTTL())
		case 1:
			h.Record(histories.FBegin, fmt.Sprintf("holding %s in the proxy until a newer token is sent, to race it", r))
			env.NewerSent(r.Resource, r.Token).Wait(ctx, 8*env.LeaseTTL())
		default:
			h.Record(histories.FBegin, fmt.Sprintf("holding %s in the proxy until another write to %s is in flight, to send them together", r, r.Resource))
			h.partner(env, r.Resource).Wait(ctx, 8*env.LeaseTTL())
		}
		done()
	} else {
		h.Record(histories.FBegin, fmt.Sprintf("holding %s in the proxy for %v", r, h.For))
		h.Sleep(ctx, h.For)
	}
	h.Record(histories.FEnd, fmt.Sprintf("delivering %s late", r))
	return next(ctx, r)
}

// partner returns a gate that opens when the next write to resource
// enters the proxy.
func (h *Hold) partner(env nemesis.Env, resource string) sched.Gate {
	g := env.Runtime().NewGate()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.partners == nil {
		h.partners = make(map[string][]sched.Gate)
	}
	h.partners[resource] = append(h.partners[resource], g)
	return g
}

// arrived opens the gates of the writes held for a partner on resource:
// a write to it is in flight now.
func (h *Hold) arrived(resource string) {
	h.mu.Lock()
	waiting := h.partners[resource]
	delete(h.partners, resource)
	h.mu.Unlock()
	for _, g := range waiting {
		g.Open()
	}
}

// MakesStaleWrites implements nemesis.StaleWriter.
func (*Hold) MakesStaleWrites() {}
