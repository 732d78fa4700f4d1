package nemesis

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// TestKillCountsOnlyCrashesOfALiveReceiver: a kill that finds the receiver
// already gone records no action and fails the run; a restart that does
// not come back fails it too, after the crash it did make.
func TestKillCountsOnlyCrashesOfALiveReceiver(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		proc    *fakeProcess
		actions int
		fail    string
	}{
		{"exited before the first kill", &fakeProcess{lives: 0}, 0, "no live receiver to crash: " + errExited.Error()},
		{"exited after two kills", &fakeProcess{lives: 2}, 2, "no live receiver to crash: " + errExited.Error()},
		{"did not come back", &fakeProcess{lives: 5, startFails: true}, 1, "did not come back after SIGKILL: port taken"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			k := NewKill(tc.proc)
			k.SetActive(true)
			require.NoError(t, env.Sim.Run(func() { k.Act(context.Background(), env) }))
			assert.Equal(t, tc.actions, env.Begins("kill"), "kill actions recorded")
			require.Len(t, env.Fails, 1)
			assert.ErrorContains(t, env.Fails[0], tc.fail)
		})
	}
}

// TestKillHoldsAWorkerAcrossACrash: a worker the kill fault holds has its
// lease ended, waits for the newer owner's write, and resumes only after
// the receiver crashed and came back, so that its stale write crosses the
// crash; workers held together share one crash. Without a newer write
// (bounded by eight TTLs) there is no crash; inactive or undrawn, the
// worker is not held.
func TestKillHoldsAWorkerAcrossACrash(t *testing.T) {
	t.Parallel()
	const ttl = 100 * time.Millisecond
	cases := []struct {
		name    string
		active  bool
		floats  []float64 // one draw per held worker: held?
		workers int
		newerAt time.Duration
		resumed time.Duration
		kills   int
		last    string
	}{
		{name: "inactive", floats: []float64{0}, workers: 1},
		{name: "not drawn", active: true, floats: []float64{0.5}, workers: 1},
		{name: "a newer owner wrote: crash, then resume", active: true, floats: []float64{0.1}, workers: 1,
			newerAt: 30 * time.Millisecond, resumed: 30 * time.Millisecond, kills: 1,
			last: "a newer owner wrote and the receiver restarted; resuming with the stale token"},
		{name: "no newer owner: no crash", active: true, floats: []float64{0.1}, workers: 1,
			resumed: 8 * ttl, last: "no newer owner wrote in time"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = tc.floats
			proc := &fakeProcess{lives: 10}
			k := NewKill(proc)
			k.SetActive(tc.active)
			env.OpenAt(tc.newerAt, func() sched.Gate { return env.NewerAccepted("r0", 41) })
			resumed := make([]time.Duration, tc.workers)
			simulate(t, env, func() {
				g := sched.NewGroup(env.Sim)
				for w := range tc.workers {
					g.Go(func() {
						k.Pause(context.Background(), env, PausePoint{Worker: w, Resource: "r0", Token: 41})
						resumed[w] = time.Duration(env.Sim.Now())
					})
				}
				g.Wait(context.Background(), 0)
			})
			for _, at := range resumed {
				assert.Equal(t, tc.resumed, at, "when the worker resumed")
			}
			assert.Equal(t, tc.kills, proc.kills, "crashes")
			assert.Equal(t, tc.kills, proc.starts, "restarts")
			if tc.last == "" {
				assert.Empty(t, env.Events)
				assert.Empty(t, env.Outlived)
				return
			}
			assert.Len(t, env.Outlived, tc.workers, "each held worker's lease ended")
			assert.Equal(t, tc.workers+tc.kills, env.Begins("kill"), "one action per hold and per crash")
			assert.Contains(t, env.LastDetail(), tc.last)
		})
	}
}

// TestKillActCrashesWhileActive: Act crashes and restarts the receiver
// every Every on average while active, and not at all while inactive.
func TestKillActCrashesWhileActive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		active bool
		kills  int
	}{{false, 0}, {true, 3}} {
		t.Run(fmt.Sprint("active=", tc.active), func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			proc := &fakeProcess{lives: 10}
			k := NewKill(proc)
			k.Every = 10 * time.Millisecond
			k.SetActive(tc.active)
			ctx, cancel := context.WithCancel(context.Background())
			simulate(t, env, func() {
				// Draws of 0.5: a crash at 10, 20 and 30ms.
				env.Sim.AfterFunc(35*time.Millisecond, cancel)
				k.Act(ctx, env)
			})
			assert.Equal(t, tc.kills, proc.kills)
			assert.Equal(t, tc.kills, proc.starts)
			assert.Equal(t, tc.kills, env.Begins("kill"))
			assert.Empty(t, env.Fails)
		})
	}
}

// TestKillSendsTheHeldWriteFirst: once a worker is held for a crash, a
// newer token's write to its resource waits until the held worker's stale
// write has been sent (bounded by eight TTLs, for a worker that never
// writes); older tokens and other resources pass at once.
func TestKillSendsTheHeldWriteFirst(t *testing.T) {
	t.Parallel()
	const ttl = 100 * time.Millisecond
	type send struct {
		at    time.Duration
		write string
	}
	cases := []struct {
		name       string
		heldWrites bool // the held worker writes 10ms after it resumes
		sends      []send
	}{
		{name: "the stale write goes first", heldWrites: true, sends: []send{
			{35 * time.Millisecond, "r0/40"}, {35 * time.Millisecond, "r1/50"},
			{40 * time.Millisecond, "r0/41"}, {40 * time.Millisecond, "r0/42"}}},
		{name: "a held worker that never writes", sends: []send{
			{35 * time.Millisecond, "r0/40"}, {35 * time.Millisecond, "r1/50"}, {35*time.Millisecond + 8*ttl, "r0/42"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = []float64{0.1} // hold the worker
			proc := &fakeProcess{lives: 10}
			k := NewKill(proc)
			k.SetActive(true)
			env.OpenAt(30*time.Millisecond, func() sched.Gate { return env.NewerAccepted("r0", 41) })
			var sends []send
			deliver := func(r string, token uint64) {
				_, _ = k.Deliver(context.Background(), env, Write{Resource: r, Token: token}, func(context.Context) (histories.Outcome, error) {
					sends = append(sends, send{time.Duration(env.Sim.Now()), fmt.Sprintf("%s/%d", r, token)})
					return histories.Accepted, nil
				})
			}
			simulate(t, env, func() {
				g := sched.NewGroup(env.Sim)
				g.Go(func() {
					k.Pause(context.Background(), env, PausePoint{Resource: "r0", Token: 41})
					if tc.heldWrites {
						_ = env.Sim.Sleep(context.Background(), 10*time.Millisecond)
						deliver("r0", 41)
					}
				})
				for _, w := range []struct {
					r     string
					token uint64
				}{{"r0", 42}, {"r0", 40}, {"r1", 50}} {
					g.Go(func() {
						_ = env.Sim.Sleep(context.Background(), 35*time.Millisecond)
						deliver(w.r, w.token)
					})
				}
				g.Wait(context.Background(), 0)
			})
			assert.Equal(t, 1, proc.kills)
			assert.ElementsMatch(t, tc.sends, sends)
			if tc.heldWrites {
				assert.Equal(t, "r0/41", sends[len(sends)-2].write, "the stale write before the newer one")
			}
		})
	}
}

// TestKillActSkipsAnIntervalThatHadACrash: a crash a held worker caused
// counts as the interval's crash: Act does not crash the receiver again
// right after it.
func TestKillActSkipsAnIntervalThatHadACrash(t *testing.T) {
	t.Parallel()
	env := fakeenv.New() // draws of 0.5: Act's intervals end at 10, 20, 30ms
	env.Floats = []float64{0.5, 0.1}
	proc := &fakeProcess{lives: 10}
	k := NewKill(proc)
	k.Every = 10 * time.Millisecond
	k.SetActive(true)
	env.OpenAt(15*time.Millisecond, func() sched.Gate { return env.NewerAccepted("r0", 41) })
	ctx, cancel := context.WithCancel(context.Background())
	simulate(t, env, func() {
		env.Sim.AfterFunc(35*time.Millisecond, cancel)
		env.Sim.Go(func() {
			_ = env.Sim.Sleep(context.Background(), 5*time.Millisecond) // after Act's first draw
			k.Pause(context.Background(), env, PausePoint{Resource: "r0", Token: 41})
		})
		k.Act(ctx, env)
	})
	var crashes []time.Duration
	for i, ev := range env.Events {
		if ev.F == histories.FCrash {
			crashes = append(crashes, env.Times[i])
		}
	}
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 15 * time.Millisecond, 30 * time.Millisecond}, crashes)
}

// TestKillActLeavesTheReceiverUpAsLongAsItWasDown: each interval between
// Act's crashes is longer by the time the last restart took, so a slow
// restart does not leave the receiver down for most of the run.
func TestKillActLeavesTheReceiverUpAsLongAsItWasDown(t *testing.T) {
	t.Parallel()
	env := fakeenv.New() // draws of 0.5: intervals of Every
	proc := &fakeProcess{lives: 10, startTakes: 20 * time.Millisecond, sim: env.Sim}
	k := NewKill(proc)
	k.Every = 10 * time.Millisecond
	k.SetActive(true)
	ctx, cancel := context.WithCancel(context.Background())
	simulate(t, env, func() {
		env.Sim.AfterFunc(95*time.Millisecond, cancel)
		k.Act(ctx, env)
	})
	var crashes []time.Duration
	for i, ev := range env.Events {
		if ev.F == histories.FCrash {
			crashes = append(crashes, env.Times[i])
		}
	}
	// Down 10–30ms, up 30–60ms; down 60–80ms, up until the phase ends.
	assert.Equal(t, []time.Duration{10 * time.Millisecond, 60 * time.Millisecond}, crashes)
}
