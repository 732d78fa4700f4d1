package proxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
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
// drives, the run's Env (for randomness, gates and recording), and the
// choice of requests.
type fault struct {
	name   string
	active atomic.Bool
	mu     sync.Mutex
	env    nemesis.Env
	// Select, if set, chooses the requests to act on while active;
	// otherwise each described write is chosen with Probability, drawn
	// from the run's seeded generator.
	Select      Selector
	Probability float64
}

func (f *fault) Name() string      { return f.name }
func (f *fault) SetActive(on bool) { f.active.Store(on) }
func (f *fault) Active() bool      { return f.active.Load() }

// Attach implements nemesis.Attacher: the harness hands over its Env
// before the run starts.
func (f *fault) Attach(env nemesis.Env) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.env = env
}

func (f *fault) getEnv() nemesis.Env {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.env
}

// chosen reports whether the toxic acts on r.
func (f *fault) chosen(r *Request) bool {
	if !f.Active() {
		return false
	}
	if f.Select != nil {
		return f.Select(r)
	}
	env := f.getEnv()
	return env != nil && r.IsWrite() && env.Float64() < f.Probability
}

// record writes a nemesis event (histories.FBegin or FEnd) when attached
// to a run.
func (f *fault) record(ev, detail string) {
	if env := f.getEnv(); env != nil {
		env.Record(&histories.Event{Process: -1, Actor: histories.ActorNemesis, F: ev, Fault: f.name, Detail: detail})
	}
}

// sleep waits d on the run's clock (which ends at the end of the fault
// phase), or on the machine's without a run.
func (f *fault) sleep(ctx context.Context, d time.Duration) {
	if env := f.getEnv(); env != nil {
		_ = env.Runtime().Sleep(ctx, d)
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// Names lists the proxy's faults by their --nemesis names.
var Names = []string{"hold", "duplicate-request", "drop-response", "latency"}

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
