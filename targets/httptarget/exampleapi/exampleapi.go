// Package exampleapi holds the receivers of the three worked adapter
// examples in docs/http-protocol.md: small HTTP APIs that fencecheck did
// not design, each mapped onto its protocol by an adapter file in
// docs/adapters. Each is a real fenced receiver (the comparison and the
// write are one step under a lock) or, with Bug NoComparison, the same API
// that applies every write whatever its token; the answers look the same
// either way, so only the adapter's mapping of them lets a run tell the
// two apart.
//
// They exist to test fencecheck (the adapter tests and the end-to-end
// tests run them in the test process); they bound nothing and persist
// nothing.
package exampleapi

import (
	"net/http"
	"sync"
)

// Bug chooses a receiver's defect.
type Bug int

const (
	// Correct rejects every token not above the resource's current one.
	Correct Bug = iota
	// NoComparison applies every write and answers it as accepted.
	NoComparison
)

// item is a resource's current state.
type item struct {
	value string
	token uint64
}

// store is the receivers' shared state: a compare-and-set map.
type store struct {
	bug   Bug
	mu    sync.Mutex
	items map[string]item
}

func newStore(bug Bug) *store { return &store{bug: bug, items: make(map[string]item)} }

// put applies the write when its token is above the current one (or
// always, with NoComparison) and returns the current token before it.
func (s *store) put(key string, token uint64, value string) (current uint64, applied bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	current = s.items[key].token
	if token <= current && s.bug != NoComparison {
		return current, false
	}
	s.items[key] = item{value: value, token: token}
	return current, true
}

func (s *store) get(key string) (item, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[key]
	return it, ok
}

// Handlers returns the three example APIs by the name of their adapter
// file in docs/adapters (without .json).
func Handlers() map[string]func(Bug) http.Handler {
	return map[string]func(Bug) http.Handler{
		"error-text":     ErrorText,
		"query-token":    QueryToken,
		"string-version": StringVersion,
	}
}
