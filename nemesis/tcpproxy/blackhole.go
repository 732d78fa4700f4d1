package tcpproxy

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Blackhole swallows a chosen chunk and, from then on, every byte of its
// connection both ways, keeping the connection open: a network that eats
// packets silently. The client waits for an answer that never comes
// until its own timeout, and cannot tell whether its request reached
// the receiver, so the operation's outcome is unknown. Other connections
// (and new ones, once the window closes) are untouched. A chunk is chosen
// with Probability while active (Select for a script).
type Blackhole struct{ fault }

// NewBlackhole returns the blackhole toxic with its defaults.
func NewBlackhole() *Blackhole {
	return &Blackhole{fault: fault{Switch: toxic.Switch{FaultName: NameBlackhole, Needs: nemesis.NeedTCPProxy}, Probability: 0.1}}
}

// Pipe implements Toxic.
func (b *Blackhole) Pipe(_ context.Context, c *Conn, ch *Chunk) Verdict {
	if !b.Chosen(ch, true) {
		return Forward
	}
	b.Record(histories.FBegin, fmt.Sprintf("swallowing %s and every later byte of the connection: no answer", ch))
	c.OnClose(func() {
		b.Record(histories.FEnd, fmt.Sprintf("connection %d closed by a peer that gave up waiting", c.ID))
	})
	return Swallow
}
