package nemesis

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// TestPause: a targeted pause ends the worker's lease (at once, or, with
// a lease service that can let it lapse, when the issuer ended it by its
// TTL, bounded) and holds the worker until a newer owner has written (the
// gate opens), bounded by eight lease TTLs; a random pause lasts up to two
// TTLs; an inactive or undrawn pause does not hold the worker at all. The
// worker resumes at the instant of the newer write, not at a timer.
func TestPause(t *testing.T) {
	t.Parallel()
	const ttl = 100 * time.Millisecond
	cases := []struct {
		name     string
		active   bool
		floats   []float64 // drawn: paused?, targeted?, random length
		newerAt  time.Duration
		took     time.Duration
		outlived []string
		last     string
		// lapse: the lease service lets leases lapse; the issuer ends the
		// paused worker's at lapsedAt (0: never), within is its bound.
		lapse            bool
		lapsedAt, within time.Duration
	}{
		{name: "inactive", active: false, floats: []float64{0}},
		{name: "not drawn", active: true, floats: []float64{0.5}},
		{name: "targeted: until a newer owner wrote", active: true, floats: []float64{0.1, 0.1}, newerAt: 30 * time.Millisecond,
			took: 30 * time.Millisecond, outlived: []string{"r0/41"}, last: "a newer owner wrote; resuming with the stale token"},
		{name: "targeted: nobody writes, bounded", active: true, floats: []float64{0.1, 0.1},
			took: 8 * ttl, outlived: []string{"r0/41"}, last: "no newer owner wrote in time; resuming"},
		{name: "random: a share of two TTLs", active: true, floats: []float64{0.1, 0.9, 0.25},
			took: 50 * time.Millisecond, last: "worker 3 resumes"},
		// With a lease service that lets the lease lapse, the issuer ends
		// it (here 2s on), and then the newer owner writes.
		{name: "targeted, lapsing: until the issuer ended the lease", active: true, floats: []float64{0.1, 0.1},
			lapse: true, lapsedAt: 2 * time.Second, within: 11 * time.Second, newerAt: 2100 * time.Millisecond,
			took: 2100 * time.Millisecond, last: "a newer owner wrote; resuming with the stale token"},
		{name: "targeted, lapsing: an issuer that does not end it in time gets it revoked", active: true, floats: []float64{0.1, 0.1},
			lapse: true, within: 5 * time.Second, newerAt: 5100 * time.Millisecond,
			took: 5100 * time.Millisecond, outlived: []string{"r0/41"}, last: "a newer owner wrote; resuming with the stale token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = tc.floats
			p := NewPause()
			p.SetActive(tc.active)
			env.OpenAt(tc.newerAt, func() sched.Gate { return env.NewerAccepted("r0", 41) })
			lapsed := env.Sim.NewGate()
			if tc.lapse {
				env.Lapse = func(string, uint64) (sched.Gate, time.Duration, bool) { return lapsed, tc.within, true }
				env.OpenAt(tc.lapsedAt, func() sched.Gate { return lapsed })
			}
			took := simulate(t, env, func() {
				p.Pause(context.Background(), env, PausePoint{Worker: 3, Process: 7, Resource: "r0", Token: 41})
			})
			assert.Equal(t, tc.took, took, "how long the worker was held")
			assert.Equal(t, tc.outlived, env.Outlived, "leases ended for the paused worker")
			if strings.HasPrefix(tc.name, "targeted") {
				assert.Equal(t, []int{3}, env.Holds, "the run is told the worker is held for its stale write")
				assert.Zero(t, env.Active(), "and that the hold ended")
			} else {
				assert.Empty(t, env.Holds)
			}
			if tc.lapse {
				assert.Equal(t, []string{"r0/41"}, env.Lapsed, "the paused worker's lease left to lapse")
			}
			if tc.last == "" {
				assert.Empty(t, env.Events, "no pause, no action")
				return
			}
			assert.Equal(t, 1, env.Begins("pause"))
			assert.Contains(t, env.LastDetail(), tc.last)
		})
	}
}

func TestPauseMakesStaleWrites(t *testing.T) {
	t.Parallel()
	assert.Implements(t, (*StaleWriter)(nil), NewPause())
	assert.Implements(t, (*Pauser)(nil), NewPause())
	assert.Equal(t, "pause", NewPause().Name())
}
