package nemesis

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// TestDelayDeliver: a delayed write is sent once, late: after a newer
// token was accepted, after a newer token was sent (both ending the
// write's lease first, and bounded by eight TTLs), or after a share of two
// TTLs; the worker gets the answer the send got. An inactive or undrawn
// delay sends at once.
func TestDelayDeliver(t *testing.T) {
	t.Parallel()
	const ttl = 100 * time.Millisecond
	cases := []struct {
		name     string
		active   bool
		floats   []float64 // drawn: delayed?, random length
		way      int       // drawn: which hold
		accepted time.Duration
		sentAt   time.Duration
		at       time.Duration // when the write is sent
		outlived []string
		detail   string
	}{
		{name: "inactive", floats: []float64{0}},
		{name: "not drawn", active: true, floats: []float64{0.5}},
		{name: "until a newer token is accepted", active: true, floats: []float64{0.1}, way: 0, accepted: 40 * time.Millisecond,
			at: 40 * time.Millisecond, outlived: []string{"r0/41"}, detail: "until a newer token is accepted"},
		{name: "until a newer token is sent", active: true, floats: []float64{0.1}, way: 1, sentAt: 20 * time.Millisecond, accepted: 90 * time.Millisecond,
			at: 20 * time.Millisecond, outlived: []string{"r0/41"}, detail: "until a newer token is sent"},
		{name: "no newer token: bounded", active: true, floats: []float64{0.1}, way: 0,
			at: 8 * ttl, outlived: []string{"r0/41"}, detail: "until a newer token is accepted"},
		{name: "for a random time", active: true, floats: []float64{0.1, 0.25}, way: 2,
			at: 50 * time.Millisecond, detail: "for 50ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats, env.Ints = tc.floats, []int{tc.way}
			env.OpenAt(tc.accepted, func() sched.Gate { return env.NewerAccepted("r0", 41) })
			env.OpenAt(tc.sentAt, func() sched.Gate { return env.NewerSent("r0", 41) })
			d := NewDelay()
			d.SetActive(tc.active)
			refused := errors.New("refused")
			s := &countingSend{rt: env.Sim, answers: []histories.Outcome{histories.Rejected}, errs: []error{refused}}
			var out histories.Outcome
			var err error
			simulate(t, env, func() {
				out, err = d.Deliver(context.Background(), env, Write{Process: 7, Resource: "r0", Token: 41}, s.send)
			})
			assert.Equal(t, []time.Duration{tc.at}, s.calledAt, "sent once, at")
			assert.Equal(t, histories.Rejected, out, "the worker gets the send's answer")
			assert.ErrorIs(t, err, refused)
			assert.Equal(t, tc.outlived, env.Outlived)
			if tc.detail == "" {
				assert.Empty(t, env.Events)
				return
			}
			assert.Equal(t, 1, env.Begins("delay"))
			assert.True(t, hasDetail(env.Details(), tc.detail), env.Details())
		})
	}
}

// TestDelayHoldInWindow: inside a receiver's race window, about half the
// writes are held until a newer token is accepted, their lease ended
// first; the others, and all while inactive, pass at once.
func TestDelayHoldInWindow(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		active   bool
		floats   []float64
		held     time.Duration
		outlived []string
	}{
		{name: "inactive", floats: []float64{0}},
		{name: "not drawn", active: true, floats: []float64{0.5}},
		{name: "held until a newer token is accepted", active: true, floats: []float64{0.1}, held: 25 * time.Millisecond, outlived: []string{"r0/41"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = tc.floats
			env.OpenAt(25*time.Millisecond, func() sched.Gate { return env.NewerAccepted("r0", 41) })
			d := NewDelay()
			d.SetActive(tc.active)
			var released time.Duration
			simulate(t, env, func() {
				d.HoldInWindow(context.Background(), env, "r0", 41)
				released = time.Duration(env.Sim.Now())
			})
			assert.Equal(t, tc.held, released)
			assert.Equal(t, tc.outlived, env.Outlived)
			assert.Equal(t, len(tc.outlived), env.Begins("delay"))
		})
	}
}

func TestDelayIsAStaleWriter(t *testing.T) {
	t.Parallel()
	d := NewDelay()
	assert.Implements(t, (*StaleWriter)(nil), d)
	assert.Implements(t, (*Deliverer)(nil), d)
	assert.Implements(t, (*WindowHolder)(nil), d)
}
