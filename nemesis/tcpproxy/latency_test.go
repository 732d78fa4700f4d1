package tcpproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// TestLatency: an active latency toxic delays each chunk of its
// directions on the run's clock before forwarding it, and no other; the
// test is the clock, so nothing here depends on how fast the machine is.
func TestLatency(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		dir    Direction
		active bool
		delays []Direction // the directions delayed, in order
	}{
		{name: "inactive", dir: Both},
		{name: "requests", dir: Up, active: true, delays: []Direction{Up}},
		{name: "answers", dir: Down, active: true, delays: []Direction{Down}},
		{name: "both ways", dir: Both, active: true, delays: []Direction{Up, Down}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, clock := newEnv(), newStepClock()
			e.rt = clock
			l := NewLatency()
			l.Dir, l.Latency = tc.dir, 7*time.Millisecond
			l.Attach(e)
			l.SetActive(tc.active)
			srv := newEcho(t)
			c := dial(t, start(t, srv, l))
			_, err := c.Write([]byte("ping"))
			require.NoError(t, err)
			for _, d := range tc.delays {
				assert.Equal(t, 7*time.Millisecond, <-clock.sleeps, "the jitter drawn at the middle adds nothing")
				ev := e.next(t, histories.FBegin)
				assert.Contains(t, ev.Detail, "4 bytes "+d.String())
				if d == Up {
					assert.Empty(t, srv.received(), "the request waits in the proxy")
				} else {
					assert.Equal(t, "ping", <-srv.seen)
				}
				clock.wake <- struct{}{}
				e.next(t, histories.FEnd)
			}
			readBack(t, c, "ping")
			assert.Equal(t, []string{"ping"}, srv.received())
			assert.Equal(t, len(tc.delays), e.Begins(NameLatency))
		})
	}
}
