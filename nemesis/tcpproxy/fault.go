package tcpproxy

import (
	"bytes"

	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Selector chooses the chunks a toxic acts on, for scripting a fault on
// an event: the chunk that carries a given write.
type Selector func(c *Chunk) bool

// Carrying selects the client's chunks that contain b (a statement's
// unique value, a key): the request a test wants the fault on.
func Carrying(b []byte) Selector {
	b = bytes.Clone(b)
	return func(c *Chunk) bool { return c.Dir == Up && bytes.Contains(c.Data, b) }
}

// fault is what every toxic shares: the on/off switch the schedule
// drives, the run's Env and the choice of what to act on (toxic.Choice).
type fault = toxic.Choice[*Chunk]

// The proxy's faults by their --nemesis names. The net- prefix tells them
// from the HTTP proxy's (hold, latency): these act on bytes, below the
// protocol, for any TCP receiver.
const (
	NameLatency   = "net-latency"
	NameHold      = "net-hold"
	NameBlackhole = "net-blackhole"
	NameReset     = "net-reset"
)

// Names lists the proxy's faults by their --nemesis names.
func Names() []string { return []string{NameLatency, NameHold, NameBlackhole, NameReset} }

// New returns a proxy fault by name, and false for names it does not know.
func New(name string) (nemesis.Fault, bool) {
	switch name {
	case NameLatency:
		return NewLatency(), true
	case NameHold:
		return NewHold(), true
	case NameBlackhole:
		return NewBlackhole(), true
	case NameReset:
		return NewReset(), true
	}
	return nil, false
}

// Toxics returns the faults that are TCP proxy toxics, in order.
func Toxics(faults []nemesis.Fault) []Toxic {
	var out []Toxic
	for _, f := range faults {
		if t, ok := f.(Toxic); ok {
			out = append(out, t)
		}
	}
	return out
}
