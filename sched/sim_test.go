package sched

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wakeTrace runs under a Sim tasks that go through every kind of wake-up:
// a task's start, Yield, Sleep, a gate another task opens while a long
// timeout is pending, a gate's timeout, an AfterFunc that fires (and
// sleeps and waits in its function) and one stopped before its time; it
// returns the order and the virtual instants at which they acted, and
// the steps the simulation took.
func wakeTrace(t *testing.T, seed uint64, order Order) (string, int) {
	t.Helper()
	sim := NewSimOrdered(seed, order, 200)
	var mu sync.Mutex
	var log []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, fmt.Sprintf("%s@%d", s, sim.Now()/int64(time.Microsecond)))
	}
	ctx := context.Background()
	require.NoError(t, sim.Run(func() {
		g := NewGroup(sim)
		opened, never := sim.NewGate(), sim.NewGate()
		for i := range 4 {
			g.Go(func() {
				note(fmt.Sprintf("start%d", i))
				sim.Yield()
				note(fmt.Sprintf("yielded%d", i))
				_ = sim.Sleep(ctx, time.Duration(i%2+1)*time.Millisecond)
				note(fmt.Sprintf("slept%d", i))
				if opened.Wait(ctx, time.Hour) {
					note(fmt.Sprintf("opened%d", i))
				}
				if !never.Wait(ctx, time.Duration(i+1)*time.Millisecond) {
					note(fmt.Sprintf("timeout%d", i))
				}
			})
			stop := sim.AfterFunc(time.Duration(i+1)*time.Millisecond, func() {
				note(fmt.Sprintf("after%d", i))
				_ = sim.Sleep(ctx, time.Millisecond)
				opened.Wait(ctx, time.Millisecond)
				note(fmt.Sprintf("after%d.end", i))
			})
			if i%2 == 1 {
				g.Go(func() {
					_ = sim.Sleep(ctx, 500*time.Microsecond)
					stop()
				})
			}
		}
		_ = sim.Sleep(ctx, 3*time.Millisecond)
		opened.Open()
		g.Wait(ctx, 0)
	}))
	return strings.Join(log, " "), sim.Steps()
}

// TestSimIsAsBefore: the simulation that carries tasks on reused
// goroutines and takes an AfterFunc's first steps without one makes the
// choices, keeps the clock and counts the steps of the simulation with a
// goroutine per task, so a seed a user kept gives the same history; these
// traces and steps were recorded from that simpler simulation.
func TestSimIsAsBefore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		seed  uint64
		order Order
		trace string
		steps int
	}{
		{42, Random(), "start3@0 start2@0 yielded3@0 yielded2@0 start1@0 start0@0 yielded1@0 yielded0@0 slept2@1000 slept0@1000 after0@1000 slept1@2000 slept3@2000 after0.end@3000 after2@3000 opened0@3000 opened1@3000 opened3@3000 opened2@3000 after2.end@4000 timeout0@4000 timeout1@5000 timeout2@6000 timeout3@7000", 38},
		{7, Random(), "start0@0 start1@0 yielded0@0 start3@0 yielded3@0 start2@0 yielded1@0 yielded2@0 slept2@1000 after0@1000 slept0@1000 slept1@2000 slept3@2000 after0.end@3000 after2@3000 opened2@3000 opened3@3000 opened0@3000 opened1@3000 after2.end@4000 timeout0@4000 timeout1@5000 timeout2@6000 timeout3@7000", 38},
		{5, PCT(3), "start3@0 yielded3@0 start0@0 yielded0@0 start1@0 yielded1@0 start2@0 yielded2@0 slept0@1000 after0@1000 slept2@1000 slept3@2000 slept1@2000 after0.end@3000 after2@3000 opened3@3000 opened0@3000 opened1@3000 opened2@3000 timeout0@4000 after2.end@4000 timeout1@5000 timeout2@6000 timeout3@7000", 38},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.order, tc.seed), func(t *testing.T) {
			trace, steps := wakeTrace(t, tc.seed, tc.order)
			assert.Equal(t, tc.trace, trace)
			assert.Equal(t, tc.steps, steps)
		})
	}
}

// TestSimTimersLeaveWithTheirWait: a gate that opens takes its waiter's
// timeout out of the heap, so that a long run whose waits end by their
// gates does not keep a timer per wait until the clock reaches it.
func TestSimTimersLeaveWithTheirWait(t *testing.T) {
	t.Parallel()
	sim := NewSim(1)
	var pending []int
	require.NoError(t, sim.Run(func() {
		for range 100 {
			g := sim.NewGate()
			sim.Go(g.Open)
			assert.True(t, g.Wait(context.Background(), time.Hour))
			sim.mu.Lock()
			pending = append(pending, len(sim.timers))
			sim.mu.Unlock()
		}
	}))
	assert.Equal(t, make([]int, 100), pending)
	assert.Less(t, sim.Now(), int64(time.Hour), "no timeout was waited for")
}
