package workload

import (
	"sync"

	"github.com/fencecheck/fencecheck/sched"
)

// tokenWatch tracks, per resource, the highest token seen at one point of
// a write's life (sent by a worker, or accepted as a client saw it), and
// opens gates waiting for a newer one. The pause and delay faults use it to
// hold a stale worker or request until a newer owner has written, or to
// release an old request just as a newer one is sent, so that the two race
// to the resource.
type tokenWatch struct {
	rt sched.Runtime
	mu sync.Mutex
	// Slices, not maps, where order matters: gates open in the order
	// they were registered, so the simulation stays deterministic.
	highest map[string]uint64
	waiting map[string][]tokenWait
}

type tokenWait struct {
	above uint64
	gate  sched.Gate
}

func newTokenWatch(rt sched.Runtime) *tokenWatch {
	return &tokenWatch{rt: rt, highest: make(map[string]uint64), waiting: make(map[string][]tokenWait)}
}

func (a *tokenWatch) observe(resource string, token uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if token <= a.highest[resource] {
		return
	}
	a.highest[resource] = token
	kept := a.waiting[resource][:0]
	for _, w := range a.waiting[resource] {
		if token > w.above {
			w.gate.Open()
		} else {
			kept = append(kept, w)
		}
	}
	a.waiting[resource] = kept
}

func (a *tokenWatch) newer(resource string, token uint64) sched.Gate {
	a.mu.Lock()
	defer a.mu.Unlock()
	g := a.rt.NewGate()
	if a.highest[resource] > token {
		g.Open()
		return g
	}
	a.waiting[resource] = append(a.waiting[resource], tokenWait{above: token, gate: g})
	return g
}
