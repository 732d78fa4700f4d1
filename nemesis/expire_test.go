package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/stretchr/testify/assert"
)

// TestExpire: while active, Expire ends a random resource's lease every
// Every on average and records only the expiries that ended a lease;
// inactive, it ends none; it stops with its context.
func TestExpire(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name      string
		active    bool
		canExpire bool
		expired   int
		actions   int
	}{
		{name: "inactive"},
		{name: "active, a lease to end", active: true, canExpire: true, expired: 5, actions: 5},
		{name: "active, no lease to end", active: true, expired: 5},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.ResourceNames = []string{"r0", "r1", "r2"}
			env.CanExpire = tc.canExpire
			x := NewExpire()
			x.Every = 10 * time.Millisecond
			x.SetActive(tc.active)
			ctx, cancel := context.WithCancel(context.Background())
			simulate(t, env, func() {
				// Draws of 0.5 space the expiries Every (+1ns) apart:
				// five of them before the fault phase ends at 55ms.
				env.Sim.AfterFunc(55*time.Millisecond, cancel)
				x.Act(ctx, env)
			})
			assert.Len(t, env.Expired, tc.expired)
			for _, r := range env.Expired {
				assert.Equal(t, "r1", r, "the drawn resource")
			}
			assert.Equal(t, tc.actions, env.Begins("expire"))
		})
	}
}

// TestExpireDefaultsToAQuarterTTL: without Every, expiries come a quarter
// of the lease TTL apart on average.
func TestExpireDefaultsToAQuarterTTL(t *testing.T) {
	t.Parallel()
	env := fakeenv.New() // TTL 100ms: one expiry every 25ms (+1ns)
	env.CanExpire = true
	x := NewExpire()
	x.SetActive(true)
	ctx, cancel := context.WithCancel(context.Background())
	simulate(t, env, func() {
		env.Sim.AfterFunc(110*time.Millisecond, cancel)
		x.Act(ctx, env)
	})
	assert.Equal(t, 4, env.Begins("expire"))
}
