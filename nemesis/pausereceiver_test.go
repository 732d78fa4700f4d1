package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPauseReceiver: while active, Act freezes the receiver every Every on
// average for a share of two lease TTLs and thaws it after, recording the
// pause; inactive, it never freezes it.
func TestPauseReceiver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		active  bool
		freezes int
	}{{"inactive", false, 0}, {"active", true, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New() // TTL 100ms; draws of 0.5
			proc := &fakeProcess{lives: 1}
			p := NewPauseReceiver(proc)
			p.Every = 10 * time.Millisecond
			p.SetActive(tc.active)
			ctx, cancel := context.WithCancel(context.Background())
			took := simulate(t, env, func() {
				// Frozen at 10ms for 100ms; the phase ends meanwhile.
				env.Sim.AfterFunc(50*time.Millisecond, cancel)
				p.Act(ctx, env)
			})
			assert.Equal(t, tc.freezes, proc.freezes)
			assert.False(t, proc.frozen, "thawed before Act returns")
			assert.Equal(t, tc.freezes, env.Begins("pause-receiver"))
			if tc.active {
				assert.Equal(t, 110*time.Millisecond, took, "thawed after the pause it drew")
				assert.True(t, hasDetail(env.Details(), "SIGSTOP to the receiver process for 100ms"), env.Details())
				assert.Contains(t, env.LastDetail(), "SIGCONT")
			}
		})
	}
}

func TestPauseReceiverOfAGoneReceiver(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	p := NewPauseReceiver(&fakeProcess{lives: 0})
	p.SetActive(true)
	require.NoError(t, env.Sim.Run(func() {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p.freeze(ctx, env, time.Millisecond)
	}))
	assert.Zero(t, env.Begins("pause-receiver"), "a pause that did not happen is not an action")
	require.Len(t, env.Fails, 1)
	assert.ErrorIs(t, env.Fails[0], errExited)
}
