package harness

import (
	"math/rand/v2"
	"sync"
)

// lockedRand is the run's single source of randomness. Under the
// simulation only one task runs at a time, so the sequence of draws, and
// with it the history, is a function of the seed; the lock makes it safe
// in real time too.
type lockedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

func newLockedRand(seed uint64) *lockedRand {
	return &lockedRand{r: rand.New(rand.NewPCG(seed, seed^0xfe9ce))}
}

func (l *lockedRand) Float64() float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Float64()
}

func (l *lockedRand) IntN(n int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.IntN(n)
}
