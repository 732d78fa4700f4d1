package lease_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// TestNetStoreRenew: the store's renewal extends only the current lease:
// a lease granted for 1 s and renewed for an hour has more than a second
// left; a lease that was ended, or that carries another token, is not
// renewed.
func TestNetStoreRenew(t *testing.T) {
	t.Parallel()
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		ctx := context.Background()
		st, _, err := n.connect(ctx, n.dsn(t))
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, st.(interface{ Close() error }).Close()) })
		token, ok, err := st.Grant(ctx, "r", 0, time.Second)
		require.NoError(t, err)
		require.True(t, ok)
		renewed, err := st.Renew(ctx, "r", token+1, time.Hour)
		require.NoError(t, err)
		assert.False(t, renewed, "another token's lease")
		renewed, err = st.Renew(ctx, "r", token, time.Hour)
		require.NoError(t, err)
		assert.True(t, renewed)
		left, err := st.Left(ctx, "r", token)
		require.NoError(t, err)
		assert.Greater(t, left, 59*time.Minute, "the renewal set the TTL")
		ended, err := st.End(ctx, "r", token)
		require.NoError(t, err)
		require.True(t, ended)
		renewed, err = st.Renew(ctx, "r", token, time.Hour)
		require.NoError(t, err)
		assert.False(t, renewed, "an ended lease stays ended")
	})
}

// TestNetRenewAndHeld: through the service, Held is true while the lease
// is current and false once the nemesis ended it; a renewal is recorded
// as a renew event; a lease that ran out on the issuer (a 200 ms TTL,
// waited out on the issuer's own clock) is neither held nor renewable,
// and its end is recorded once, before anything else happens on it.
func TestNetRenewAndHeld(t *testing.T) {
	t.Parallel()
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		t.Run("ended by the nemesis", func(t *testing.T) {
			t.Parallel()
			s := openService(t, n, 10*time.Second)
			ctx := context.Background()
			l, err := s.Acquire(ctx, "r", 0)
			require.NoError(t, err)
			held, err := s.Held(ctx, l)
			require.NoError(t, err)
			assert.True(t, held)
			require.NoError(t, s.Renew(ctx, l))
			require.True(t, s.ExpireToken("r", l.Token))
			held, err = s.Held(ctx, l)
			require.NoError(t, err)
			assert.False(t, held)
			require.ErrorIs(t, s.Renew(ctx, l), lease.ErrNotHeld)
			assert.Equal(t, []string{histories.FAcquire, histories.FRenew, histories.FExpire}, fs(s.leaseEvents("r")))
		})
		t.Run("run out on the issuer", func(t *testing.T) {
			t.Parallel()
			s := openService(t, n, 200*time.Millisecond)
			ctx := context.Background()
			l, err := s.Acquire(ctx, "r", 0)
			require.NoError(t, err)
			// Ask until the issuer says the lease is gone: its clock, not
			// ours, decides.
			deadline := time.Now().Add(30 * time.Second)
			for {
				held, err := s.Held(ctx, l)
				require.NoError(t, err)
				if !held {
					break
				}
				require.True(t, time.Now().Before(deadline), "the issuer never ended a 200 ms lease")
				time.Sleep(10 * time.Millisecond)
			}
			require.ErrorIs(t, s.Renew(ctx, l), lease.ErrNotHeld)
			evs := s.leaseEvents("r")
			assert.Equal(t, []string{histories.FAcquire, histories.FExpire}, fs(evs))
			assert.Contains(t, evs[1].Detail, "TTL elapsed")
		})
	})
}

func fs(evs []histories.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.F
	}
	return out
}
