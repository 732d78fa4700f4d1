package sched

import (
	"context"
	"sync"
	"time"
)

// Group waits for a set of tasks, like sync.WaitGroup, but through the
// runtime, so that waiting is a scheduling point under Sim.
type Group struct {
	rt   Runtime
	mu   sync.Mutex
	n    int
	gate Gate
}

// NewGroup returns an empty group.
func NewGroup(rt Runtime) *Group { return &Group{rt: rt} }

// Add counts one more task.
func (g *Group) Add() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n++
}

// Done counts one task finished.
func (g *Group) Done() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 && g.gate != nil {
		g.gate.Open()
		g.gate = nil
	}
}

// Go runs fn as a task of the group.
func (g *Group) Go(fn func()) {
	g.Add()
	g.rt.Go(func() {
		defer g.Done()
		fn()
	})
}

// Wait waits until every task is done, the timeout passes (≤ 0: none) or
// ctx is done; it reports whether the group emptied.
func (g *Group) Wait(ctx context.Context, timeout time.Duration) bool {
	g.mu.Lock()
	if g.n == 0 {
		g.mu.Unlock()
		return true
	}
	if g.gate == nil {
		// Made only when someone waits: Add and Done are on the hot
		// path of every operation.
		g.gate = g.rt.NewGate()
	}
	gate := g.gate
	g.mu.Unlock()
	return gate.Wait(ctx, timeout)
}
