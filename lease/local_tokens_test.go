package lease

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// TestLocalGrantsItsSequence: Local grants the tokens of the sequence it
// was given, and once the sequence leaves the receiver's domain it grants
// nothing, to the free caller and to every waiter, rather than a token
// the receiver cannot store.
func TestLocalGrantsItsSequence(t *testing.T) {
	t.Parallel()
	sim := sched.NewSim(1)
	rec := histories.NewRecorder(&bufWriter{}, histories.RecorderOptions{Clock: sim, Retain: true})
	life, stop := context.WithCancel(context.Background())
	defer stop()
	l := NewLocal(life, sim, rec, 100*time.Millisecond)
	l.UseTokens(From(math.MaxInt64-1), math.MaxInt64)
	var got []uint64
	var waiterErr error
	require.NoError(t, sim.Run(func() {
		ctx := context.Background()
		for range 2 {
			a, err := l.Acquire(ctx, "r", 0)
			require.NoError(t, err)
			got = append(got, a.Token)
			if len(got) == 2 {
				g := sched.NewGroup(sim)
				g.Go(func() { _, waiterErr = l.Acquire(ctx, "r", 1) })
				sim.Yield()
				l.Release(a) // the waiter's grant would be 2^63
				g.Wait(ctx, 0)
				break
			}
			l.Release(a)
		}
		_, err := l.Acquire(ctx, "r", 2)
		assert.ErrorIs(t, err, ErrTokensExhausted)
	}))
	assert.Equal(t, []uint64{math.MaxInt64 - 1, math.MaxInt64}, got)
	assert.ErrorIs(t, waiterErr, ErrTokensExhausted)
}
