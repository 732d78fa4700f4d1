package tcpproxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
)

// TestHold: a held request reaches the receiver after another
// connection's request was answered (the event that releases it), or,
// with no other traffic, once the bound passed; the held connection then
// gets its answer.
func TestHold(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		other bool
		ttl   time.Duration
		want  []string // what the receiver got, in order
		why   string
	}{
		{name: "overtaken by another connection", other: true, ttl: time.Hour,
			want: []string{"other", "held"}, why: "another connection was answered first"},
		{name: "bounded without other traffic", ttl: time.Millisecond,
			want: []string{"held"}, why: "no other answer within 8ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv()
			e.TTL = tc.ttl
			h := NewHold()
			h.Select = only("held")
			h.Attach(e)
			h.SetActive(true)
			srv := newEcho(t)
			p := start(t, srv, h)
			a, b := dial(t, p), dial(t, p)
			_, err := a.Write([]byte("held"))
			assert.NoError(t, err)
			assert.Contains(t, e.next(t, histories.FBegin).Detail, "holding 4 bytes client to server on connection")
			if tc.other {
				assert.Empty(t, srv.received(), "the request waits in the proxy")
				roundTrip(t, b, "other")
			}
			readBack(t, a, "held")
			assert.Contains(t, e.next(t, histories.FEnd).Detail, tc.why)
			assert.Equal(t, tc.want, srv.received())
			assert.Equal(t, []int{-1}, e.Holds, "the run goes on while the bytes are held")
			assert.Zero(t, e.Active())
		})
	}
}

// TestHoldWithoutARunUsesFor: outside a run the bound is For.
func TestHoldWithoutARunUsesFor(t *testing.T) {
	t.Parallel()
	h := NewHold()
	h.For = time.Millisecond
	h.Select = only("held")
	h.SetActive(true)
	srv := newEcho(t)
	roundTrip(t, dial(t, start(t, srv, h)), "held")
}
