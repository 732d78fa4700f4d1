package sched

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bubbleTrace runs, inside a synctest bubble on a distinct Real, tasks
// that all ask to wake at the same instants, through every kind of
// wake-up (a task's start, Sleep, AfterFunc, a gate's timeout, a gate
// another task opens), and returns the order and the instants at which
// they acted.
func bubbleTrace(t *testing.T) (trace string, instants []int64) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		rt := NewRealDistinct()
		var mu sync.Mutex
		var log []string
		note := func(s string) {
			mu.Lock()
			defer mu.Unlock()
			now := rt.Now()
			log = append(log, fmt.Sprintf("%s@%d", s, now))
			instants = append(instants, now)
		}
		require.NoError(t, rt.Run(func() {
			g := NewGroup(rt)
			opened := rt.NewGate()
			never := rt.NewGate()
			for i := range 4 {
				g.Go(func() {
					note(fmt.Sprintf("start%d", i))
					_ = rt.Sleep(t.Context(), time.Millisecond)
					note(fmt.Sprintf("slept%d", i))
					if opened.Wait(t.Context(), 0) {
						note(fmt.Sprintf("opened%d", i))
					}
					if !never.Wait(t.Context(), time.Millisecond) {
						note(fmt.Sprintf("timeout%d", i))
					}
				})
				stop := rt.AfterFunc(time.Millisecond, func() { note(fmt.Sprintf("after%d", i)) })
				defer stop()
			}
			_ = rt.Sleep(t.Context(), 2*time.Millisecond)
			opened.Open()
			g.Wait(context.Background(), 0)
		}))
		trace = strings.Join(log, " ")
	})
	return trace, instants
}

// TestDistinctWakeups: on a synctest bubble's clock, where goroutines
// woken at one instant run in parallel, no two tasks of a distinct Real
// act at the same instant, so the order of their actions is the same on
// every run.
func TestDistinctWakeups(t *testing.T) {
	t.Parallel()
	first, instants := bubbleTrace(t)
	seen := make(map[int64]bool)
	for _, at := range instants {
		assert.False(t, seen[at], "two tasks acted at %d: %s", at, first)
		seen[at] = true
	}
	assert.Len(t, instants, 20)
	for range 5 {
		again, _ := bubbleTrace(t)
		require.Equal(t, first, again)
	}
	// Each wake-up asked for an instant another already had gets the
	// next free nanosecond, in the order they were asked for: the main
	// task starts at 1, its tasks at 2…5; the AfterFuncs, asked for in
	// between, have the first instants after a millisecond, the sleeps
	// the next ones; the gate's waiters wake in the order they began to
	// wait, each after its opener.
	assert.Equal(t, "start0@2 start1@3 start2@4 start3@5 "+
		"after0@1000001 after1@1000002 after2@1000003 after3@1000004 "+
		"slept0@1000005 slept1@1000006 slept2@1000007 slept3@1000008 "+
		"opened0@2000002 opened1@2000003 opened2@2000004 opened3@2000005 "+
		"timeout0@3000002 timeout1@3000003 timeout2@3000004 timeout3@3000005", first)
}

func TestGatesOnDistinctReal(t *testing.T) {
	t.Parallel()
	rt := NewRealDistinct()
	var opened, timedOut, already bool
	require.NoError(t, rt.Run(func() {
		g := rt.NewGate()
		rt.Go(func() {
			_ = rt.Sleep(context.Background(), time.Millisecond)
			g.Open()
			g.Open()
		})
		opened = g.Wait(context.Background(), time.Minute)
		already = g.Wait(context.Background(), time.Minute)
		timedOut = !rt.NewGate().Wait(context.Background(), time.Millisecond)
	}))
	assert.True(t, opened)
	assert.True(t, already, "an open gate lets a later wait through")
	assert.True(t, timedOut)
}
