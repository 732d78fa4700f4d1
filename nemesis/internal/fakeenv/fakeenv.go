// Package fakeenv is the run as a fault sees it (nemesis.Env), for the
// faults' own tests: a simulated clock, scripted random draws, gates a
// test opens, and a record of what the fault asked of the run.
package fakeenv

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// Env implements nemesis.Env on a sched.Sim.
type Env struct {
	Sim *sched.Sim
	TTL time.Duration

	mu sync.Mutex
	// Floats are what Float64 returns, in turn; then 0.5.
	Floats []float64
	// Ints are what IntN returns (mod n), in turn; then n/2.
	Ints []int
	// CanExpire is what ExpireLease reports.
	CanExpire bool
	// ResourceNames is what Resources returns.
	ResourceNames []string

	Events   []*histories.Event
	Times    []time.Duration // the virtual time of each event
	Fails    []error
	Outlived []string // "resource/token" of each OutliveLease
	// Lapse is what LapseLease returns; nil: the service cannot.
	Lapse   func(r string, token uint64) (sched.Gate, time.Duration, bool)
	Lapsed  []string // "resource/token" of each LapseLease
	Expired []string // the resource of each ExpireLease
	// Holds are the worker of each Holding, -1 for a write.
	Holds  []int
	active int // holds not done

	accepted map[string]sched.Gate
	sent     map[string]sched.Gate
}

// New returns an Env with a 100ms lease TTL and one resource, "r0".
func New() *Env {
	return &Env{Sim: sched.NewSim(1), TTL: 100 * time.Millisecond, ResourceNames: []string{"r0"},
		accepted: map[string]sched.Gate{}, sent: map[string]sched.Gate{}}
}

func (e *Env) Runtime() sched.Runtime  { return e.Sim }
func (e *Env) LeaseTTL() time.Duration { return e.TTL }
func (e *Env) Resources() []string     { return e.ResourceNames }

func (e *Env) Float64() float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.Floats) == 0 {
		return 0.5
	}
	f := e.Floats[0]
	e.Floats = e.Floats[1:]
	return f
}

func (e *Env) IntN(n int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.Ints) == 0 {
		return n / 2
	}
	i := e.Ints[0] % n
	e.Ints = e.Ints[1:]
	return i
}

func (e *Env) ExpireLease(r string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Expired = append(e.Expired, r)
	return e.CanExpire
}

func (e *Env) OutliveLease(r string, token uint64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Outlived = append(e.Outlived, key(r, token))
	return true
}

func (e *Env) LapseLease(r string, token uint64) (sched.Gate, time.Duration, bool) {
	e.mu.Lock()
	e.Lapsed = append(e.Lapsed, key(r, token))
	lapse := e.Lapse
	e.mu.Unlock()
	if lapse == nil {
		return nil, 0, false
	}
	return lapse(r, token)
}

func key(r string, token uint64) string { return fmt.Sprintf("%s/%d", r, token) }

func (e *Env) gate(m map[string]sched.Gate, r string, token uint64) sched.Gate {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := key(r, token)
	if m[k] == nil {
		m[k] = e.Sim.NewGate()
	}
	return m[k]
}

// NewerAccepted returns the gate for (r, token); OpenAt opens it.
func (e *Env) NewerAccepted(r string, token uint64) sched.Gate {
	return e.gate(e.accepted, r, token)
}

// Holding counts the holds in Holds; done ends one.
func (e *Env) Holding(worker int) func() {
	e.mu.Lock()
	e.Holds = append(e.Holds, worker)
	e.active++
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		e.active--
		e.mu.Unlock()
	}
}

// Active is the number of holds in progress.
func (e *Env) Active() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.active
}

// NewerSent returns the gate for (r, token); OpenAt opens it.
func (e *Env) NewerSent(r string, token uint64) sched.Gate { return e.gate(e.sent, r, token) }

func (e *Env) Record(ev *histories.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Events = append(e.Events, ev)
	e.Times = append(e.Times, time.Duration(e.Sim.Now()))
}

func (e *Env) Fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.Fails = append(e.Fails, err)
}

// OpenAt opens a gate at virtual time at, as the harness does when the
// event it stands for happens; at ≤ 0 leaves it shut. Call it before
// Sim.Run.
func (e *Env) OpenAt(at time.Duration, g func() sched.Gate) {
	if at <= 0 {
		return
	}
	e.Sim.Go(func() {
		_ = e.Sim.Sleep(context.Background(), at)
		g().Open()
	})
}

// Begins counts the recorded actions of fault, as coverage does.
func (e *Env) Begins(fault string) int {
	n := 0
	for _, ev := range e.Events {
		if ev.Fault == fault && (ev.F == histories.FBegin || ev.F == histories.FCrash) {
			n++
		}
	}
	return n
}

// Edges lists the recorded window edges as "AT +fault" or "AT -fault".
func (e *Env) Edges() []string {
	var out []string
	for i, ev := range e.Events {
		switch ev.F {
		case histories.FStart:
			out = append(out, fmt.Sprintf("%v +%s", e.Times[i], ev.Fault))
		case histories.FStop:
			out = append(out, fmt.Sprintf("%v -%s", e.Times[i], ev.Fault))
		}
	}
	return out
}

// Details lists the recorded events as "fault F: detail".
func (e *Env) Details() []string {
	var out []string
	for _, ev := range e.Events {
		out = append(out, fmt.Sprintf("%s %s: %s", ev.Fault, ev.F, ev.Detail))
	}
	return out
}

// LastDetail is the detail of the last event recorded, "" for none.
func (e *Env) LastDetail() string {
	if len(e.Events) == 0 {
		return ""
	}
	return e.Events[len(e.Events)-1].Detail
}
