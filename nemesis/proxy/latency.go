package proxy

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/nemesis/internal/toxic"
)

// Latency delays every request while active by Latency ± Jitter before it
// reaches the receiver, so that requests overtake each other.
type Latency struct {
	fault
	Latency time.Duration // default 5ms
	Jitter  time.Duration // default 5ms
}

// NewLatency returns the latency toxic with its defaults.
func NewLatency() *Latency {
	return &Latency{fault: fault{Switch: toxic.Switch{FaultName: "latency", Needs: nemesis.NeedHTTPProxy}, Probability: 1}, Latency: 5 * time.Millisecond, Jitter: 5 * time.Millisecond}
}

// Pipe implements Toxic.
func (l *Latency) Pipe(ctx context.Context, r *Request, next Forward) (*Response, error) {
	if !l.Active() || (l.Select != nil && !l.Select(r)) {
		return next(ctx, r)
	}
	d := l.Latency
	if env := l.Env(); env != nil && l.Jitter > 0 {
		d += time.Duration((2*env.Float64() - 1) * float64(l.Jitter))
	}
	d = max(d, 0)
	l.Record(histories.FBegin, fmt.Sprintf("delaying %s by %v", r, d.Round(time.Microsecond)))
	l.Sleep(ctx, d)
	l.Record(histories.FEnd, fmt.Sprintf("forwarding %s", r))
	return next(ctx, r)
}
