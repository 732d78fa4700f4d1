package lease

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

type bufWriter struct{ bytes.Buffer }

func (b *bufWriter) Close() error { return nil }

func TestLeases(t *testing.T) {
	t.Parallel()
	sim := sched.NewSim(1)
	rec := histories.NewRecorder(&bufWriter{}, histories.RecorderOptions{Clock: sim, Retain: true})
	life, stop := context.WithCancel(context.Background())
	l := NewLocal(life, sim, rec, 100*time.Millisecond)
	var got []Lease
	var grantedAt []int64
	require.NoError(t, sim.Run(func() {
		ctx := context.Background()
		a, err := l.Acquire(ctx, "r", 0)
		require.NoError(t, err)
		got, grantedAt = append(got, a), append(grantedAt, sim.Now())
		g := sched.NewGroup(sim)
		g.Go(func() { // waits for the lease: expiry hands it over
			b, err := l.Acquire(ctx, "r", 1)
			require.NoError(t, err)
			got, grantedAt = append(got, b), append(grantedAt, sim.Now())
			l.Release(b) // released before its TTL
			c, err := l.Acquire(ctx, "r", 2)
			require.NoError(t, err)
			got, grantedAt = append(got, c), append(grantedAt, sim.Now())
			assert.True(t, l.Expire("r"), "the nemesis can end a lease early")
			assert.False(t, l.Expire("r"), "nothing left to expire")
		})
		other, err := l.Acquire(ctx, "s", 3)
		require.NoError(t, err)
		assert.Equal(t, uint64(1), other.Token, "tokens are per resource")
		l.Release(other)
		g.Wait(ctx, 0)
		l.Release(a) // A's lease expired long ago: releasing it changes nothing
		stop()
	}))
	require.NoError(t, rec.Close())
	require.Len(t, got, 3)
	assert.Equal(t, []uint64{1, 2, 3}, []uint64{got[0].Token, got[1].Token, got[2].Token})
	assert.Equal(t, []int64{0, int64(100 * time.Millisecond), int64(100 * time.Millisecond)}, grantedAt)

	var log []string
	for _, e := range rec.Events() {
		if e.Resource == "r" {
			log = append(log, e.F)
		}
	}
	assert.Equal(t, []string{"acquire", "expire", "acquire", "release", "acquire", "expire"}, log)
}
