package nemesis

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// Process is a receiver running as a process that faults can crash and
// freeze (targets/process.Child implements it). Each method fails when the
// process has exited on its own: there is nothing left to act on.
type Process interface {
	// Kill crashes the process (SIGKILL) and waits until it is gone.
	Kill() error
	// Start starts it again and waits until it is ready.
	Start(ctx context.Context) error
	// Freeze stops it (SIGSTOP); Thaw resumes it (SIGCONT).
	Freeze() error
	Thaw() error
}

// Kill crashes the receiver process with SIGKILL and starts it again, at
// random intervals while active: whatever it had not made durable is lost.
// Writes in flight at the crash have unknown outcomes.
//
// A crash matters to fencing when a stale write crosses it: the article's
// worker A pauses holding token 41, B's 42 is accepted, the receiver
// crashes and restarts, and only then does A submit 41. So Kill also holds
// some workers at their pause point until a newer owner has written, then
// crashes the receiver itself and lets them go once it is back; a receiver
// that kept its highest token only in memory then accepts the stale write.
// Until the held worker's write has been sent, newer tokens' writes to its
// resource wait (Deliver), so that the stale write is the first the
// restarted receiver meets there, however the machine schedules the
// workers.
type Kill struct {
	toggle
	proc Process
	// Every is the mean time between crashes while active; default three
	// lease TTLs.
	Every time.Duration
	// HoldShare is the probability that a worker at its pause point is
	// held across the next crash; default 0.5.
	HoldShare float64

	mu      sync.Mutex   // one crash at a time
	started atomic.Int64 // crashes begun
	down    atomic.Int64 // how long the last restart took, on the run's clock

	heldMu sync.Mutex
	held   map[string]*heldWrite // by resource
}

// heldWrite is the stale write a crash is made for, until it is sent.
type heldWrite struct {
	token uint64
	sent  sched.Gate
}

// NewKill returns the kill fault for proc.
func NewKill(proc Process) *Kill {
	return &Kill{toggle: toggle{name: "kill"}, proc: proc, HoldShare: 0.5}
}

// Available implements Fault: the kill fault acts on the process it
// was given, and on nothing without one.
func (k *Kill) Available(Site) error { return needProcess(k.name, k.proc) }

// needProcess is the answer of a fault that acts on proc.
func needProcess(name string, proc Process) error {
	if proc == nil {
		return &Unavailable{Fault: name, Needs: NeedProcess}
	}
	return nil
}

// Pause implements Pauser: hold the worker until a newer owner has
// written, crash and restart the receiver, and only then let the worker
// submit its stale write. The crash is caused by the newer write, not by
// the next tick of the kill timer, so the stale write crosses a crash
// however fast the machine is.
func (k *Kill) Pause(ctx context.Context, env Env, pp PausePoint) {
	if !k.Active() || env.Float64() >= k.HoldShare {
		return
	}
	ttl := env.LeaseTTL()
	record(env, k.name, histories.FBegin, fmt.Sprintf("worker %d (process %d) holds token %d on %s across a receiver crash", pp.Worker, pp.Process, pp.Token, pp.Resource))
	done := env.Holding(pp.Worker)
	defer done()
	env.OutliveLease(pp.Resource, pp.Token)
	newer := env.NewerAccepted(pp.Resource, pp.Token).Wait(ctx, 8*ttl)
	var h *heldWrite
	if newer {
		// Before the crash: no newer write may reach the restarted
		// receiver first.
		h = k.hold(env, pp.Resource, pp.Token)
	}
	restarted := newer && k.crashAfter(ctx, env, k.started.Load())
	if h != nil && !restarted {
		k.release(pp.Resource, h)
	}
	outcome := "no newer owner wrote in time"
	switch {
	case restarted:
		outcome = "a newer owner wrote and the receiver restarted; resuming with the stale token"
	case newer:
		outcome = "a newer owner wrote but the receiver did not restart; resuming"
	}
	record(env, k.name, histories.FEnd, fmt.Sprintf("worker %d resumes: %s", pp.Worker, outcome))
}

func (k *Kill) every(env Env) time.Duration {
	if k.Every > 0 {
		return k.Every
	}
	return 3 * env.LeaseTTL()
}

// hold registers the held worker's stale write on resource, unless one is
// held there already.
func (k *Kill) hold(env Env, resource string, token uint64) *heldWrite {
	k.heldMu.Lock()
	defer k.heldMu.Unlock()
	if k.held[resource] != nil {
		return nil
	}
	if k.held == nil {
		k.held = make(map[string]*heldWrite)
	}
	h := &heldWrite{token: token, sent: env.Runtime().NewGate()}
	k.held[resource] = h
	return h
}

// release lets the writes that wait for h go.
func (k *Kill) release(resource string, h *heldWrite) {
	k.heldMu.Lock()
	if k.held[resource] == h {
		delete(k.held, resource)
	}
	k.heldMu.Unlock()
	h.sent.Open()
}

// Deliver implements Deliverer: the held worker's stale write goes first;
// a newer token's write to its resource waits until it has been sent
// (bounded, in case the held worker never writes).
func (k *Kill) Deliver(ctx context.Context, env Env, w Write, send Send) (histories.Outcome, error) {
	k.heldMu.Lock()
	h := k.held[w.Resource]
	k.heldMu.Unlock()
	switch {
	case h == nil:
	case w.Token == h.token:
		out, err := send(ctx)
		k.release(w.Resource, h)
		return out, err
	case w.Token > h.token:
		h.sent.Wait(ctx, 8*env.LeaseTTL())
	}
	return send(ctx)
}

// Act implements Actor: a crash in each random interval while active,
// unless one that a held worker caused fell into it. Each interval is
// longer by the time the last restart took, so that the receiver is up at
// least as long as it was down: on a slow machine, where restarts take
// long, crashes on a fixed timer would leave it down for most of the run
// and the run with too little evidence.
func (k *Kill) Act(ctx context.Context, env Env) {
	every := k.every(env)
	rt := env.Runtime()
	for ctx.Err() == nil {
		mark := k.started.Load()
		wait := time.Duration((0.5+env.Float64())*float64(every)) + time.Duration(k.down.Load())
		if rt.Sleep(ctx, wait) != nil {
			return
		}
		if k.Active() && !k.crashAfter(ctx, env, mark) {
			return
		}
	}
}

// crashAfter makes sure a crash began after the mark (a count of crashes
// begun), one crash at a time, and reports whether the receiver answers
// again: a worker held for a crash needs one, not one of its own.
func (k *Kill) crashAfter(ctx context.Context, env Env, mark int64) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.started.Load() > mark {
		return true // one began since, and it is over: we hold its lock
	}
	return k.crashLocked(ctx, env)
}

// crashLocked kills the receiver and starts it again. The action is
// recorded once the SIGKILL hit a live receiver, so a kill that found it
// already gone is never counted as one: it is the end of the run.
func (k *Kill) crashLocked(ctx context.Context, env Env) bool {
	k.started.Add(1)
	if err := k.proc.Kill(); err != nil {
		env.Fail(fmt.Errorf("kill fault: no live receiver to crash: %w", err))
		return false
	}
	start, down := time.Now(), env.Runtime().Now()
	record(env, k.name, histories.FCrash, "SIGKILL to the receiver process")
	// The restart completes even if the fault phase ends meanwhile: the
	// final reads need a running receiver.
	if err := k.proc.Start(context.WithoutCancel(ctx)); err != nil {
		record(env, k.name, histories.FEnd, fmt.Sprintf("the receiver did not come back: %v", err))
		env.Fail(fmt.Errorf("kill fault: the receiver did not come back after SIGKILL: %w", err))
		return false
	}
	k.down.Store(env.Runtime().Now() - down)
	record(env, k.name, histories.FEnd, fmt.Sprintf("the receiver restarted and answers again after %v", time.Since(start).Round(time.Millisecond)))
	return true
}
