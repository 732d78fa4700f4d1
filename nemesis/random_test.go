package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/stretchr/testify/assert"
)

// TestRandom: windows open after a quiet Interval and last a Window (both
// scaled by a draw in [0.5, 1.5)); each window has the faults in turn,
// plus each other fault drawn with probability one half; the faults still
// on when the context ends are switched off and their windows recorded as
// closed.
func TestRandom(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		floats []float64 // quiet, (others: include?), window, quiet, …
		edges  []string
	}{
		{name: "the faults in turn", floats: nil, // every draw 0.5: quiet 10ms, window 20ms, no other fault
			edges: []string{"10ms +pause", "30ms -pause", "40ms +delay", "60ms -delay", "70ms +pause", "90ms -pause"}},
		{name: "another fault drawn into a window", floats: []float64{0, 0.1, 1},
			// quiet 5ms; delay included with pause; window 30ms
			edges: []string{"5ms +pause", "5ms +delay", "35ms -pause", "35ms -delay", "45ms +delay", "65ms -delay", "75ms +pause", "95ms -pause"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = tc.floats
			faults := []Fault{NewPause(), NewDelay()}
			ctx, cancel := context.WithCancel(context.Background())
			simulate(t, env, func() {
				env.Sim.AfterFunc(80*time.Millisecond, cancel)
				Random{Interval: 10 * time.Millisecond, Window: 20 * time.Millisecond}.Run(ctx, env, faults)
			})
			assert.Equal(t, tc.edges, env.Edges())
			for _, f := range faults {
				assert.False(t, f.Active(), "%s left on", f.Name())
			}
		})
	}
}

func TestRandomWithoutFaults(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	took := simulate(t, env, func() { Random{Interval: time.Second, Window: time.Second}.Run(context.Background(), env, nil) })
	assert.Zero(t, took, "returns at once")
	assert.Empty(t, env.Events)
}
