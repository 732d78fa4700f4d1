package proxy

import (
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Selector chooses the requests a toxic acts on, for scripting a fault per
// request (the third request, the write of token 41 to "report").
type Selector func(r *Request) bool

// Nth selects the n-th request through the proxy (1-based).
func Nth(n int64) Selector { return func(r *Request) bool { return r.Seq == n } }

// WriteOf selects the writes of token to resource.
func WriteOf(resource string, token uint64) Selector {
	return func(r *Request) bool { return r.IsWrite() && r.Resource == resource && r.Token == token }
}

// fault is what every toxic shares: the on/off switch the schedule
// drives, the run's Env and the choice of what to act on (toxic.Choice).
type fault = toxic.Choice[*Request]

// Names lists the proxy's faults by their --nemesis names.
func Names() []string { return []string{"hold", "duplicate-request", "drop-response", "latency"} }

// New returns a proxy fault by name, and false for names it does not know.
func New(name string) (nemesis.Fault, bool) {
	switch name {
	case "hold":
		return NewHold(), true
	case "duplicate-request":
		return NewDuplicate(), true
	case "drop-response":
		return NewDropResponse(), true
	case "latency":
		return NewLatency(), true
	}
	return nil, false
}

// Toxics returns the faults that are proxy toxics, in order.
func Toxics(faults []nemesis.Fault) []Toxic {
	var out []Toxic
	for _, f := range faults {
		if t, ok := f.(Toxic); ok {
			out = append(out, t)
		}
	}
	return out
}
