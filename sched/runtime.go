// Package sched gives the harness and the nemesis one way to run tasks,
// sleep and wait, with two implementations: Real, on the machine's clock
// and goroutines, for targets across a network; and Sim, a seeded
// discrete-event scheduler with a virtual clock, for in-memory targets.
//
// Under Sim only one task runs at a time, every wait is a scheduling point,
// and ties are broken by a seeded choice: uniform at random (Random, the
// default) or by PCT's priorities (PCT, for bugs that need several tasks
// to be preempted at the right steps). The interleaving is therefore a
// function of the seed and the order, the history is the same bytes on
// every run, and a five-second run takes a fraction of a second.
//
// Real made by NewRealDistinct is for a third case, a receiver in the
// process whose own goroutines and timers must run too: inside a
// testing/synctest bubble the time package's clock is virtual, and
// distinct wake-ups make the run's tasks act one at a time, so the
// history is again a function of the seed (see NewRealDistinct).
package sched

import (
	"context"
	"time"
)

// Runtime runs tasks and tells time.
//
// Code that runs under a Runtime must wait only through it (Sleep, Gate,
// Yield): under Sim, blocking on anything else stops the world.
type Runtime interface {
	// Now returns nanoseconds since the runtime started; it never
	// decreases.
	Now() int64
	// Sleep waits d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
	// Go starts fn as a new task.
	Go(fn func())
	// Yield lets other tasks run before the caller continues.
	Yield()
	// NewGate returns a closed gate.
	NewGate() Gate
	// AfterFunc runs fn as a task once d has passed, unless the returned
	// stop is called first.
	AfterFunc(d time.Duration, fn func()) (stop func())
}

// Gate is a one-shot signal: once opened it stays open.
type Gate interface {
	Open()
	// Wait blocks until the gate opens (true), the timeout passes (false;
	// a timeout ≤ 0 means none) or ctx is done (false).
	Wait(ctx context.Context, timeout time.Duration) bool
}

// Ordered reports whether rt fixes the order in which its tasks act, so
// that a seed fixes the history: Sim, and Real with distinct instants.
// There every task's steps are part of what a seed explores; on a plain
// Real the Go scheduler interleaves goroutines as it will.
func Ordered(rt Runtime) bool {
	switch r := rt.(type) {
	case *Sim:
		return true
	case *Real:
		return r.wakes != nil
	}
	return false
}
