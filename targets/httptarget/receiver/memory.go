package receiver

import (
	"context"
	"sync"
)

// Memory is a store in memory: everything is lost when the process ends.
type Memory struct {
	mu    sync.Mutex
	cells map[string]Cell
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{cells: make(map[string]Cell)} }

// CompareAndPut implements Store under one lock.
func (m *Memory) CompareAndPut(_ context.Context, resource string, c Cell, rule Rule) (bool, uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur := m.cells[resource]
	if !rule.accepts(cur.Token, c.Token) {
		return false, cur.Token, nil
	}
	m.cells[resource] = c
	return true, c.Token, nil
}

// Get implements Store.
func (m *Memory) Get(_ context.Context, resource string) (Cell, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.cells[resource]
	return c, ok, nil
}

// Put implements Store.
func (m *Memory) Put(_ context.Context, resource string, c Cell) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cells[resource] = c
	return nil
}

// Close implements Store.
func (m *Memory) Close() error { return nil }
