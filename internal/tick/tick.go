// Package tick calls a function on a real-time ticker: the live progress
// of a run (harness) and of a sweep (explore), shown about four times a
// second; the two stages share it.
package tick

import "time"

// Every calls fn every d from a goroutine of its own, and once more when
// the returned stop is called, which returns after that last call: a
// progress line then ends on the final figures.
func Every(d time.Duration, fn func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-quit:
				fn()
				return
			case <-t.C:
				fn()
			}
		}
	}()
	return func() { close(quit); <-done }
}
