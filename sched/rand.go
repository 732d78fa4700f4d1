package sched

import (
	"math/rand/v2"
	"sync"
)

// Rand is a run's single source of randomness: every random choice of the
// workers and the nemesis draws from one. Under Sim only one task runs at a
// time, so the sequence of draws, and with it the history, is a function
// of the seed; the lock makes it safe on the real clock too.
type Rand struct {
	mu sync.Mutex
	r  *rand.Rand
}

// NewRand returns the source of randomness of a run with seed.
func NewRand(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, seed^0xfe9ce))}
}

// Float64 draws from [0, 1).
func (l *Rand) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

// IntN draws from [0, n).
func (l *Rand) IntN(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.IntN(n)
}
