package proxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
)

// TestLatency: while active, every request, reads too, waits Latency ±
// Jitter (drawn) on the run's clock before it is forwarded; a Selector
// narrows it; inactive, nothing waits.
func TestLatency(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		active   bool
		selector Selector
		draw     float64
		r        *Request
		at       time.Duration
	}{
		{name: "inactive", draw: 0.5, r: write("r", 2)},
		{name: "a write, jittered up", active: true, draw: 0.75, r: write("r", 2), at: 12 * time.Millisecond},
		{name: "a read, jittered down", active: true, draw: 0.25, r: read("r"), at: 8 * time.Millisecond},
		{name: "not selected", active: true, selector: Nth(2), draw: 0.5, r: write("r", 2)},
		{name: "selected", active: true, selector: Nth(1), draw: 0.5, r: write("r", 2), at: 10 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = []float64{tc.draw}
			l := NewLatency()
			l.Latency, l.Jitter = 10*time.Millisecond, 4*time.Millisecond
			l.Select = tc.selector
			l.SetActive(tc.active)
			l.Attach(env)
			_, at, err := pipe(t, env, l, tc.r)
			require.NoError(t, err)
			assert.Equal(t, []time.Duration{tc.at}, at, "forwarded once, at")
			want := 0
			if tc.at > 0 {
				want = 1
			}
			assert.Equal(t, want, env.Begins("latency"))
		})
	}
}

// TestLatencyThroughTheProxy: outside a run, the write reaches the
// receiver Latency late and is applied.
func TestLatencyThroughTheProxy(t *testing.T) {
	t.Parallel()
	l := NewLatency()
	l.Latency = 30 * time.Millisecond
	s := writeThroughProxy(t, l, &l.fault)
	require.NoError(t, s.err)
	assert.Equal(t, histories.Accepted, s.outcome)
	assert.GreaterOrEqual(t, s.took, l.Latency)
	assert.Equal(t, int64(2), s.puts)
	assert.Equal(t, uint64(2), s.final)
}
