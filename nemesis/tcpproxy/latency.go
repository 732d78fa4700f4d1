package tcpproxy

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Latency delays every chunk in Dir while active by Latency ± Jitter, on
// the run's clock: a slow network. The order of a connection's bytes is
// kept (TCP's own guarantee); what changes is how requests on different
// connections interleave at the receiver, and how long a client waits, so
// that its timeouts and the lease's race the answer.
type Latency struct {
	fault
	Latency time.Duration // default 5ms
	Jitter  time.Duration // default 5ms; drawn from the run's generator
	Dir     Direction     // default Both
}

// NewLatency returns the latency toxic with its defaults.
func NewLatency() *Latency {
	return &Latency{fault: fault{Switch: toxic.Switch{FaultName: NameLatency, Needs: nemesis.NeedTCPProxy}, Probability: 1},
		Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond, Dir: Both}
}

// Pipe implements Toxic.
func (l *Latency) Pipe(ctx context.Context, _ *Conn, ch *Chunk) Verdict {
	if ch.Dir&l.Dir == 0 || !l.Chosen(ch, true) {
		return Forward
	}
	d := l.Latency
	if env := l.Env(); env != nil && l.Jitter > 0 {
		d += time.Duration((2*env.Float64() - 1) * float64(l.Jitter))
	}
	d = max(d, 0)
	l.Record(histories.FBegin, fmt.Sprintf("delaying %s by %v", ch, d.Round(time.Microsecond)))
	l.Sleep(ctx, d)
	l.Record(histories.FEnd, fmt.Sprintf("forwarding %s", ch))
	return Forward
}
