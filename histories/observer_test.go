package histories

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexLog is an Observer that keeps what it saw. It takes no lock of
// its own: the race detector then fails the test if Record ever called it
// from two goroutines at once.
type indexLog struct {
	indices []int64
	times   []int64
}

func (l *indexLog) Observe(e Event) {
	l.indices = append(l.indices, e.Index)
	l.times = append(l.times, e.Time)
}

// TestObserverSeesEveryEventInIndexOrder: recorded from many goroutines at
// once, every event reaches the observer once, stamped, one at a time and
// in the order of the file, which is what a live count of stale writes
// relies on.
func TestObserverSeesEveryEventInIndexOrder(t *testing.T) {
	t.Parallel()
	var log indexLog
	rec := NewRecorder(discard{}, RecorderOptions{Observer: &log, Retain: true})
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for range each {
				rec.Record(&Event{Process: g, Type: TypeInvoke, F: FRead, Resource: "r"})
			}
		})
	}
	wg.Wait()
	require.NoError(t, rec.Close())
	require.Len(t, log.indices, goroutines*each)
	for i, idx := range log.indices {
		// Index 0 is the header, which is not an event of the run.
		require.Equal(t, int64(i+1), idx, "the observer saw event %d out of order", idx)
	}
	var times []int64
	for _, e := range rec.Events() {
		times = append(times, e.Time)
	}
	assert.Equal(t, times, log.times, "the observer sees the times the history holds")
}
