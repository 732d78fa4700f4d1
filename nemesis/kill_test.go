package nemesis

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// fakeEnv records what faults do, on a simulated clock.
type fakeEnv struct {
	rt     *sched.Sim
	mu     sync.Mutex
	events []*histories.Event
	fails  []error
}

func newFakeEnv() *fakeEnv { return &fakeEnv{rt: sched.NewSim(1)} }

func (e *fakeEnv) Runtime() sched.Runtime  { return e.rt }
func (e *fakeEnv) Float64() float64        { return 0.5 }
func (e *fakeEnv) IntN(n int) int          { return n / 2 }
func (e *fakeEnv) LeaseTTL() time.Duration { return 100 * time.Millisecond }
func (e *fakeEnv) ExpireLease(string) bool { return false }

// OutliveLease is for an Env that also has it; nothing here uses it.
func (e *fakeEnv) OutliveLease(string, uint64) bool { return false }
func (e *fakeEnv) Resources() []string              { return []string{"r0"} }
func (e *fakeEnv) NewerAccepted(string, uint64) sched.Gate {
	return e.rt.NewGate()
}
func (e *fakeEnv) NewerSent(string, uint64) sched.Gate { return e.rt.NewGate() }
func (e *fakeEnv) Record(ev *histories.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, ev)
}
func (e *fakeEnv) Fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fails = append(e.fails, err)
}

// begins counts the recorded actions of fault, as coverage does.
func (e *fakeEnv) begins(fault string) int {
	n := 0
	for _, ev := range e.events {
		if ev.Fault == fault && ev.F == histories.FBegin {
			n++
		}
	}
	return n
}

// fakeProcess is a receiver that lives for a number of kills, then is
// found to have exited on its own; or that does not come back.
type fakeProcess struct {
	lives      int // kills that hit a live process
	startFails bool
	frozen     bool
	kills      int
}

var errExited = errors.New(`receiver "r" exited on its own (exit status 7)`)

func (p *fakeProcess) Kill() error {
	if p.kills == p.lives {
		return errExited
	}
	p.kills++
	return nil
}

func (p *fakeProcess) Start(context.Context) error {
	if p.startFails {
		return errors.New("port taken")
	}
	return nil
}

func (p *fakeProcess) Freeze() error {
	if p.lives == 0 {
		return errExited
	}
	p.frozen = true
	return nil
}

func (p *fakeProcess) Thaw() error { p.frozen = false; return nil }

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
			env := newFakeEnv()
			k := NewKill(tc.proc)
			k.SetActive(true)
			require.NoError(t, env.rt.Run(func() { k.Act(context.Background(), env) }))
			assert.Equal(t, tc.actions, env.begins("kill"), "kill actions recorded")
			require.Len(t, env.fails, 1)
			assert.ErrorContains(t, env.fails[0], tc.fail)
		})
	}
}

func TestPauseReceiverOfAGoneReceiver(t *testing.T) {
	t.Parallel()
	env := newFakeEnv()
	p := NewPauseReceiver(&fakeProcess{lives: 0})
	p.SetActive(true)
	require.NoError(t, env.rt.Run(func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p.freeze(ctx, env, time.Millisecond)
	}))
	assert.Zero(t, env.begins("pause-receiver"), "a pause that did not happen is not an action")
	require.Len(t, env.fails, 1)
	assert.ErrorIs(t, env.fails[0], errExited)
}
