package nemesis

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
)

// TestDuplicate: a duplicated write reaches the target twice and the
// worker sees the first copy's answer, error included; the second copy's
// answer is lost. Inactive or undrawn, the write is sent once.
func TestDuplicate(t *testing.T) {
	t.Parallel()
	lost := errors.New("connection reset")
	cases := []struct {
		name    string
		active  bool
		floats  []float64
		answers []histories.Outcome
		errs    []error
		sends   int
		out     histories.Outcome
		err     error
	}{
		{name: "inactive", floats: []float64{0}, answers: []histories.Outcome{histories.Accepted}, sends: 1, out: histories.Accepted},
		{name: "not drawn", active: true, floats: []float64{0.3}, answers: []histories.Outcome{histories.Accepted}, sends: 1, out: histories.Accepted},
		{name: "sent twice, first answer kept", active: true, floats: []float64{0.1},
			answers: []histories.Outcome{histories.Accepted, histories.Rejected}, sends: 2, out: histories.Accepted},
		{name: "the first copy's error is kept", active: true, floats: []float64{0.1},
			answers: []histories.Outcome{0, histories.Accepted}, errs: []error{lost, nil}, sends: 2, err: lost},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = tc.floats
			d := NewDuplicate()
			d.SetActive(tc.active)
			s := &countingSend{rt: env.Sim, answers: tc.answers, errs: tc.errs}
			var out histories.Outcome
			var err error
			simulate(t, env, func() {
				out, err = d.Deliver(context.Background(), env, Write{Process: 2, Resource: "r0", Token: 5}, s.send)
			})
			assert.Len(t, s.calledAt, tc.sends, "copies sent")
			assert.Equal(t, tc.out, out)
			assert.Equal(t, tc.err, err)
			assert.Equal(t, tc.sends-1, env.Begins("duplicate"), "each duplicate is one action")
		})
	}
}
