// Package parallel runs independent tasks on every core: the fast
// checker's resources (check) and explain's pass over a whole history,
// two stages that share it.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers is how many goroutines Run uses for n tasks.
func Workers(n int) int { return max(1, min(n, runtime.GOMAXPROCS(0))) }

// Run calls fn(w, 0) … fn(w, n-1) on Workers(n) goroutines, where w
// numbers the goroutine, so that each can have its own buffers.
func Run(n int, fn func(w, i int)) {
	count := Workers(n)
	if count == 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range count {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}
