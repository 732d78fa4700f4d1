package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// TestLocalRenewAndHeld: on the simulated clock, a holder that renews
// every 40 ms keeps a 100 ms lease for as long as it renews (a waiter
// gets it only 100 ms after the last renewal), each renewal is recorded,
// Held says whether the lease is current, and a lease that ended cannot
// be renewed.
func TestLocalRenewAndHeld(t *testing.T) {
	t.Parallel()
	sim := sched.NewSim(3)
	rec := histories.NewRecorder(&bufWriter{}, histories.RecorderOptions{Clock: sim, Retain: true})
	life, stop := context.WithCancel(context.Background())
	l := NewLocal(life, sim, rec, 100*time.Millisecond)
	var secondAt int64
	var renewErr error
	var heldBefore, heldAfter bool
	require.NoError(t, sim.Run(func() {
		ctx := context.Background()
		a, err := l.Acquire(ctx, "r", 0)
		require.NoError(t, err)
		g := sched.NewGroup(sim)
		var b Lease
		g.Go(func() {
			b, err = l.Acquire(ctx, "r", 1)
			require.NoError(t, err)
			secondAt = sim.Now()
		})
		for range 5 { // renewals at 40, 80, 120, 160, 200 ms
			require.NoError(t, sim.Sleep(ctx, 40*time.Millisecond))
			require.NoError(t, l.Renew(ctx, a))
		}
		heldBefore, _ = l.Held(ctx, a)
		g.Wait(ctx, 0) // the TTL runs out 100 ms after the last renewal
		heldAfter, _ = l.Held(ctx, a)
		renewErr = l.Renew(ctx, a)
		held, _ := l.Held(ctx, b)
		assert.True(t, held, "the new holder's lease is current")
		stop()
	}))
	require.NoError(t, rec.Close())
	assert.True(t, heldBefore)
	assert.False(t, heldAfter)
	assert.Equal(t, int64(300*time.Millisecond), secondAt, "granted to the waiter 100 ms after the last renewal")
	assert.True(t, errors.Is(renewErr, ErrNotHeld), "%v", renewErr)
	var fs []string
	for _, e := range rec.Events() {
		if e.Actor == histories.ActorLease {
			fs = append(fs, e.F)
		}
	}
	assert.Equal(t, []string{"acquire", "renew", "renew", "renew", "renew", "renew", "expire", "acquire"}, fs)
}
