package proxy

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// TestHoldInARun: in a run, a held write has its lease ended and is
// delivered once a newer token was accepted, or once a newer one was
// sent, bounded by eight lease TTLs; an unchosen request passes at once.
func TestHoldInARun(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		active   bool
		way      int
		accepted time.Duration
		sentAt   time.Duration
		at       time.Duration
		detail   string
	}{
		{name: "inactive", accepted: 40 * time.Millisecond},
		{name: "until a newer token is accepted", active: true, way: 0, accepted: 40 * time.Millisecond, sentAt: 10 * time.Millisecond,
			at: 40 * time.Millisecond, detail: "until a newer token is accepted"},
		{name: "until a newer token is sent", active: true, way: 1, accepted: 40 * time.Millisecond, sentAt: 10 * time.Millisecond,
			at: 10 * time.Millisecond, detail: "until a newer token is sent"},
		{name: "no newer token: bounded", active: true, way: 0, at: 800 * time.Millisecond, detail: "until a newer token is accepted"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Ints = []int{tc.way}
			h := NewHold()
			h.Select = WriteOf("r", 2)
			h.SetActive(tc.active)
			h.Attach(env)
			env.OpenAt(tc.accepted, func() sched.Gate { return env.NewerAccepted("r", 2) })
			env.OpenAt(tc.sentAt, func() sched.Gate { return env.NewerSent("r", 2) })
			resp, at, err := pipe(t, env, h, write("r", 2), forwarded{resp: &Response{Status: 409}})
			require.NoError(t, err)
			assert.Equal(t, 409, resp.Status, "the worker gets the receiver's answer")
			assert.Equal(t, []time.Duration{tc.at}, at, "delivered once, at")
			if tc.detail == "" {
				assert.Empty(t, env.Events)
				assert.Empty(t, env.Outlived)
				return
			}
			assert.Equal(t, []string{"r/2"}, env.Outlived, "the held write outlasts its lease")
			assert.Equal(t, 1, env.Begins("hold"))
			assert.Contains(t, env.Events[0].Detail, tc.detail)
			assert.Equal(t, histories.ActorNemesis, env.Events[0].Actor)
		})
	}
}

// TestHoldThroughTheProxy: outside a run, a held write reaches the
// receiver For late, and once; the worker's answer comes after it.
func TestHoldThroughTheProxy(t *testing.T) {
	t.Parallel()
	h := NewHold()
	h.For = 50 * time.Millisecond
	s := writeThroughProxy(t, h, &h.fault)
	require.NoError(t, s.err)
	assert.Equal(t, histories.Accepted, s.outcome)
	assert.GreaterOrEqual(t, s.took, h.For, "held at least For")
	assert.Equal(t, int64(2), s.puts)
	assert.Equal(t, uint64(2), s.final)
}

func TestHoldMakesStaleWrites(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "hold", NewHold().Name())
	assert.Implements(t, (*interface{ MakesStaleWrites() })(nil), NewHold())
}

// TestHoldUntilAPartnerIsInFlight: held for a partner, a write waits in
// the proxy until another write to its resource enters it, and both
// reach the receiver at that moment, together: a write to another
// resource does not release it.
func TestHoldUntilAPartnerIsInFlight(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	env.Ints = []int{2}
	h := NewHold()
	h.Select = WriteOf("r", 2)
	h.SetActive(true)
	h.Attach(env)
	var mu sync.Mutex
	var at []string
	next := func(_ context.Context, r *Request) (*Response, error) {
		mu.Lock()
		defer mu.Unlock()
		at = append(at, fmt.Sprintf("%s/%d at %v", r.Resource, r.Token, time.Duration(env.Sim.Now())))
		return &Response{Status: 200}, nil
	}
	send := func(after time.Duration, r *Request) {
		env.Sim.Go(func() {
			_ = env.Sim.Sleep(context.Background(), after)
			_, err := h.Pipe(context.Background(), r, next)
			assert.NoError(t, err)
		})
	}
	require.NoError(t, env.Sim.Run(func() {
		send(0, write("r", 2))
		send(10*time.Millisecond, write("other", 7))
		send(30*time.Millisecond, write("r", 3))
	}))
	assert.ElementsMatch(t, []string{"other/7 at 10ms", "r/3 at 30ms", "r/2 at 30ms"}, at)
	assert.Equal(t, 1, env.Begins("hold"))
	assert.Contains(t, env.Events[0].Detail, "until another write to r is in flight")
}
