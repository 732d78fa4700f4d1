// Package memory holds in-memory receivers: the correct fenced store and
// deliberately broken ones, each showing one hazard from the article, so that
// fencecheck can test its own detection without any external service.
package memory

import (
	"context"
	"sync"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

type cell struct {
	value string
	token uint64
}

// table is the storage shared by every in-memory receiver.
type table struct {
	mu    sync.Mutex
	cells map[string]cell
}

func (t *table) get(resource string) (cell, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.cells[resource]
	return c, ok
}

func (t *table) put(resource string, c cell) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cells == nil {
		t.cells = make(map[string]cell)
	}
	t.cells[resource] = c
}

// writeIf stores c as resource's cell if accept, given the token stored
// now (0 when never written), allows it: the comparison and the write in
// one step, under one lock.
func (t *table) writeIf(resource string, c cell, accept func(current uint64) bool) histories.Outcome {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !accept(t.cells[resource].token) {
		return histories.Rejected
	}
	if t.cells == nil {
		t.cells = make(map[string]cell)
	}
	t.cells[resource] = c
	return histories.Accepted
}

// Read returns the stored value and token.
func (t *table) Read(ctx context.Context, resource string) (targets.Reading, error) {
	if err := ctx.Err(); err != nil {
		return targets.Reading{}, err
	}
	c, ok := t.get(resource)
	if !ok {
		return targets.Reading{HasToken: true}, nil
	}
	return targets.Reading{Found: true, Value: c.value, Token: c.token, HasToken: true}, nil
}

// CheckTokenless implements targets.TokenlessWriter: every in-memory
// receiver takes writes without a token.
func (t *table) CheckTokenless() error { return nil }

// WriteWithoutToken implements targets.TokenlessWriter: with no token
// there is nothing to compare, so every in-memory receiver, the fenced
// one too, stores the value. The token it keeps is the last one it was
// sent: a write without one bypasses the fence, it does not lower it.
func (t *table) WriteWithoutToken(ctx context.Context, resource, value string) (histories.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cells == nil {
		t.cells = make(map[string]cell)
	}
	t.cells[resource] = cell{value: value, token: t.cells[resource].token}
	return histories.Accepted, nil
}

// Immediate says that the receiver answers without waiting: a read or a
// write takes the table's lock and returns, so a worker may send it from
// its own task (the workload's direct calls).
func (t *table) Immediate() bool { return true }
