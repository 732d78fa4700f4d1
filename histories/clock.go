package histories

import "time"

// Clock tells the time since a run started, in nanoseconds. Implementations
// must never go backwards; the harness supplies a virtual clock in
// deterministic mode and a monotonic one otherwise.
type Clock interface {
	Now() int64
}

// monotonicClock measures real time with Go's monotonic clock, so that wall
// clock adjustments during a run cannot reorder the history: a Recorder's
// clock when its options name none.
type monotonicClock struct{ start time.Time }

// newMonotonicClock returns a clock that reads 0 now.
func newMonotonicClock() *monotonicClock { return &monotonicClock{start: time.Now()} }

// Now returns the nanoseconds elapsed since the clock was made.
func (c *monotonicClock) Now() int64 { return int64(time.Since(c.start)) }
