// Package toxic is what the fault proxies' toxics (nemesis/proxy on HTTP
// requests, nemesis/tcpproxy on TCP bytes) share: the on/off switch the
// run's schedule drives, the run's Env the harness attaches before the
// run, the recording of each action, and the clock to wait on.
package toxic

import (
	"context"
	"sync"
	"sync/atomic"

	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/sched"
)

// Switch implements nemesis.Fault and nemesis.Attacher for a toxic that
// embeds it. FaultName is its --nemesis name; Needs is the proxy it acts
// in (nemesis.NeedHTTPProxy, nemesis.NeedTCPProxy).
type Switch struct {
	FaultName string
	Needs     nemesis.Need
	active    atomic.Bool
	held      atomic.Int32 // started proxies that hold the toxic (Enter, Leave)
	mu        sync.Mutex
	env       nemesis.Env
}

func (s *Switch) Name() string      { return s.FaultName }
func (s *Switch) SetActive(on bool) { s.active.Store(on) }
func (s *Switch) Active() bool      { return s.active.Load() }

// Available implements nemesis.Fault: a toxic acts only in its proxy.
// One that a started proxy holds knows it is in one, whatever the site
// says; a site that offers the proxy says that the target will be opened
// behind one with the toxic in it (targets/spec).
func (s *Switch) Available(site nemesis.Site) error {
	if s.held.Load() > 0 || site.Offers(s.Needs) {
		return nil
	}
	return &nemesis.Unavailable{Fault: s.FaultName, Needs: s.Needs}
}

// holder is what Enter and Leave find in a toxic: the Switch it embeds.
type holder interface{ hold(delta int32) }

func (s *Switch) hold(delta int32) { s.held.Add(delta) }

// Enter tells each toxic of a proxy that starts that the proxy holds it;
// Leave, once it is closed, that it no longer does. A toxic that embeds
// no Switch is left alone.
func Enter[T any](toxics []T) { holdAll(toxics, 1) }

// Leave is Enter's undoing (see Enter).
func Leave[T any](toxics []T) { holdAll(toxics, -1) }

func holdAll[T any](toxics []T, delta int32) {
	for _, t := range toxics {
		if h, ok := any(t).(holder); ok {
			h.hold(delta)
		}
	}
}

// Attach implements nemesis.Attacher: the harness hands over its Env
// before the run starts.
func (s *Switch) Attach(env nemesis.Env) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.env = env
}

// Env is the run's Env, nil outside a run.
func (s *Switch) Env() nemesis.Env {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.env
}

// Record writes a nemesis event (histories.FBegin or FEnd) when attached
// to a run.
func (s *Switch) Record(f, detail string) {
	if env := s.Env(); env != nil {
		env.Record(&histories.Event{Process: -1, Actor: histories.ActorNemesis, F: f, Fault: s.FaultName, Detail: detail})
	}
}

// Runtime is the run's clock (which ends at the end of the fault phase),
// or the machine's without a run.
func (s *Switch) Runtime() sched.Runtime {
	if env := s.Env(); env != nil {
		return env.Runtime()
	}
	return realTime
}

var realTime = sched.NewReal()

// Sleep waits d on Runtime, or until ctx ends.
func (s *Switch) Sleep(ctx context.Context, d time.Duration) {
	_ = s.Runtime().Sleep(ctx, d)
}

// Choice is a Switch with the choice of what the toxic acts on while it
// is active: the units of its proxy (an HTTP request, a chunk of TCP
// bytes). Select, if set, chooses them; otherwise each unit the toxic may
// act on is chosen with Probability, drawn from the run's seeded
// generator (1: every one).
type Choice[T any] struct {
	Switch
	Select      func(T) bool
	Probability float64
}

// Chosen reports whether the toxic acts on u; eligible says whether the
// toxic may act on u at all when chance decides (the HTTP proxy's
// toxics act on described writes only).
func (c *Choice[T]) Chosen(u T, eligible bool) bool {
	switch {
	case !c.Active():
		return false
	case c.Select != nil:
		return c.Select(u)
	case !eligible:
		return false
	case c.Probability >= 1:
		return true
	}
	env := c.Env()
	return env != nil && env.Float64() < c.Probability
}
