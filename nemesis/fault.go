// Package nemesis injects the faults that make stale ownership visible:
// worker pauses, lease expiry, delayed and duplicated requests. One fault
// per file; each is a small value whose optional capabilities the harness
// finds by type assertion, as toxiproxy's toxics do:
//
//	worker ── pause point ──> Pauser.Pause          (hold the worker)
//	worker ── write ────────> Deliverer.Deliver ──> target   (delay, duplicate)
//	target ── check … write ─> WindowHolder.HoldInWindow     (delay inside a race window)
//	schedule ─ start/stop ──> Fault.SetActive ──> Actor.Act  (expire leases)
//
// A fault acts only while its schedule has it active; the schedule records
// each window as start/stop events with "actor": "nemesis".
package nemesis

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// Env is what faults act on. The harness implements it.
type Env interface {
	Runtime() sched.Runtime
	// Float64 and IntN draw from the run's seeded generator.
	Float64() float64
	IntN(n int) int
	// Record appends a nemesis event to the history.
	Record(e *histories.Event)
	// LeaseTTL is the lease duration the run uses.
	LeaseTTL() time.Duration
	// ExpireLease ends the current lease on resource early, as a scheduler
	// with a fast clock would, and reports whether there was one.
	ExpireLease(resource string) bool
	// OutliveLease ends the lease on resource that carries token, if it
	// is still current, as a scheduler does once a held worker or its
	// delayed write outlasts the lease, and reports whether it was. The
	// faults that hold a stale write use it so that the newer owner comes
	// as an event, not when a timer happens to run out: what a run
	// exercises then does not depend on how fast the machine is.
	OutliveLease(resource string, token uint64) bool
	// LapseLease stops renewing the lease on resource that carries
	// token, as a paused holder's keepalive stops with it, so that the
	// issuer ends it by its TTL, for real; the gate opens once the
	// issuer has (and the expiry is recorded), and within bounds the
	// wait for it on an issuer that does not answer. ok is false when the
	// run's lease service cannot (lease.Local, whose deterministic runs
	// keep their histories) or the lease is no longer current: the fault
	// then ends it with OutliveLease.
	LapseLease(resource string, token uint64) (ended sched.Gate, within time.Duration, ok bool)
	// Resources lists the resources of the run.
	Resources() []string
	// NewerAccepted returns a gate that opens once a client saw a write
	// with a token above token accepted on resource.
	NewerAccepted(resource string, token uint64) sched.Gate
	// NewerSent returns a gate that opens once a worker sent a write with
	// a token above token to resource.
	NewerSent(resource string, token uint64) sched.Gate
	// Holding tells the run that a fault holds a worker at its pause
	// point (worker), or a write already on its way (worker -1), until a
	// newer owner of the resource writes; call done when the hold ends.
	// A run bounded by its operations goes on while a hold lasts (the
	// newer owner needs operations of its own), and the held worker's
	// write is sent even if the bound was reached meanwhile: the stale
	// write is the point of the hold, and must not depend on how fast the
	// machine spent the operations.
	Holding(worker int) (done func())
	// Fail ends the run with err instead of a verdict, for a fault that
	// finds what it acts on gone (a receiver process that exited on its
	// own): whatever answers from then on is not what the run tests. The
	// workers stop and the history recorded so far is kept.
	Fail(err error)
}

// Fault is one kind of fault. Its schedule switches it on and off.
//
// Available says whether the fault can act at a run's Site: nil, or an
// *Unavailable naming what it lacks. harness.Config.Validate asks every
// fault of a run before it starts, and the CLI asks before it opens its
// target (targets/spec), so that a fault that could never act is refused
// rather than left to make a run that tested nothing. The faults that
// need nothing beyond the workers, the leases and the target's calls
// (pause, delay, expire, duplicate) are available everywhere.
type Fault interface {
	Name() string
	SetActive(on bool)
	Active() bool
	Available(site Site) error
}

// StaleWriter is implemented by faults that exist to make a write reach
// the resource after a newer token was accepted there: the stale write
// that fencing must reject. A run with such a fault that submitted no
// stale write did not test what the fault is for, so the harness asks
// for at least one by default.
type StaleWriter interface {
	Fault
	MakesStaleWrites()
}

// PausePoint is where a worker stands when it has prepared its write and
// is about to submit it: the article's step 2.
type PausePoint struct {
	Worker   int
	Process  int
	Resource string
	Token    uint64
}

// Pauser can hold a worker at its pause point.
type Pauser interface {
	Pause(ctx context.Context, env Env, p PausePoint)
}

// Write is a write that has left the worker.
type Write struct {
	Worker   int
	Process  int
	Resource string
	Token    uint64
	Value    string
}

// Send delivers a write to the target.
type Send func(ctx context.Context) (histories.Outcome, error)

// Deliverer stands between a write that left the worker and the target.
// It calls send zero or more times and returns the answer the worker sees.
type Deliverer interface {
	Deliver(ctx context.Context, env Env, w Write, send Send) (histories.Outcome, error)
}

// WindowHolder can hold a write inside a receiver's race window, after the
// receiver compared the token and before it writes, for receivers that
// expose that window (memory://check-then-set, the SQL check-then-set mode).
// A correct receiver has no such window, so this fault cannot hurt it.
type WindowHolder interface {
	HoldInWindow(ctx context.Context, env Env, resource string, token uint64)
}

// Actor acts on its own while active, such as expiring leases; the harness
// runs Act as a task for the whole fault phase.
type Actor interface {
	Act(ctx context.Context, env Env)
}

// Attacher is implemented by faults that act outside the harness's own
// calls (the HTTP proxy's toxics, a receiver process's faults): the harness
// hands them its Env once, before the run starts.
type Attacher interface {
	Attach(env Env)
}

// toggle is the on/off switch every fault embeds.
type toggle struct {
	name   string
	active atomic.Bool
}

func (t *toggle) Name() string      { return t.name }
func (t *toggle) SetActive(on bool) { t.active.Store(on) }
func (t *toggle) Active() bool      { return t.active.Load() }

// Available implements Fault for the faults that need nothing more.
func (t *toggle) Available(Site) error { return nil }

// record writes a nemesis event for one action of a fault (f is
// histories.FBegin or histories.FEnd).
func record(env Env, fault, f, detail string) {
	env.Record(&histories.Event{Process: -1, Actor: histories.ActorNemesis, F: f, Fault: fault, Detail: detail})
}
