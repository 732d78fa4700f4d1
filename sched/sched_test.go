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

// trace runs tasks that sleep and yield under a Sim and returns the order
// in which they logged.
func trace(t *testing.T, seed uint64) string {
	t.Helper()
	sim := NewSim(seed)
	var mu sync.Mutex
	var log []string
	note := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		log = append(log, fmt.Sprintf("%s@%d", s, sim.Now()))
	}
	err := sim.Run(func() {
		for i := range 5 {
			sim.Go(func() {
				for j := range 3 {
					note(fmt.Sprintf("t%d.%d", i, j))
					if j%2 == 0 {
						sim.Yield()
					} else {
						_ = sim.Sleep(context.Background(), time.Duration(i+1)*time.Millisecond)
					}
				}
			})
		}
	})
	require.NoError(t, err)
	return strings.Join(log, " ")
}

func TestSimIsDeterministicPerSeed(t *testing.T) {
	t.Parallel()
	a, b := trace(t, 42), trace(t, 42)
	assert.Equal(t, a, b)
	differs := false
	for seed := uint64(1); seed < 20 && !differs; seed++ {
		differs = trace(t, seed) != a
	}
	assert.True(t, differs, "different seeds should give different interleavings")
}

func TestSimSleepAdvancesVirtualTimeOnly(t *testing.T) {
	t.Parallel()
	sim := NewSim(1)
	var woke []int64
	start := time.Now()
	require.NoError(t, sim.Run(func() {
		g := NewGroup(sim)
		for _, d := range []time.Duration{time.Hour, time.Second, time.Minute} {
			g.Go(func() {
				_ = sim.Sleep(context.Background(), d)
				woke = append(woke, sim.Now())
			})
		}
		g.Wait(context.Background(), 0)
	}))
	assert.Equal(t, []int64{int64(time.Second), int64(time.Minute), int64(time.Hour)}, woke)
	assert.Less(t, time.Since(start), 10*time.Second, "an hour of virtual time must not take an hour")
}

func TestGates(t *testing.T) {
	t.Parallel()
	for _, mk := range []struct {
		name string
		rt   interface {
			Runtime
			Run(func()) error
		}
	}{{"sim", NewSim(3)}, {"real", NewReal()}} {
		t.Run(mk.name, func(t *testing.T) {
			rt := mk.rt
			var opened, timedOut bool
			require.NoError(t, rt.Run(func() {
				g := rt.NewGate()
				rt.Go(func() {
					_ = rt.Sleep(context.Background(), 5*time.Millisecond)
					g.Open()
					g.Open() // idempotent
				})
				opened = g.Wait(context.Background(), time.Minute)
				never := rt.NewGate()
				timedOut = !never.Wait(context.Background(), 5*time.Millisecond)
			}))
			assert.True(t, opened)
			assert.True(t, timedOut)
		})
	}
}

func TestSimReportsDeadlock(t *testing.T) {
	t.Parallel()
	sim := NewSim(1)
	err := sim.Run(func() {
		sim.NewGate().Wait(context.Background(), 0)
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "deadlock")
}
