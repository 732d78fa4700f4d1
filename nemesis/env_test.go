package nemesis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// simulate runs fn as the first task of e's simulation and returns the
// virtual time it took.
func simulate(t *testing.T, e *fakeenv.Env, fn func()) time.Duration {
	t.Helper()
	var took time.Duration
	require.NoError(t, e.Sim.Run(func() {
		fn()
		took = time.Duration(e.Sim.Now())
	}))
	return took
}

// countingSend is a Send that records the virtual time of each call and
// answers with the outcomes in turn.
type countingSend struct {
	rt       *sched.Sim
	answers  []histories.Outcome
	errs     []error
	calledAt []time.Duration
}

func (s *countingSend) send(context.Context) (histories.Outcome, error) {
	i := len(s.calledAt)
	s.calledAt = append(s.calledAt, time.Duration(s.rt.Now()))
	var out histories.Outcome
	var err error
	if i < len(s.answers) {
		out = s.answers[i]
	}
	if i < len(s.errs) {
		err = s.errs[i]
	}
	return out, err
}

// hasDetail reports whether some recorded detail contains want.
func hasDetail(details []string, want string) bool {
	return slices.ContainsFunc(details, func(d string) bool { return strings.Contains(d, want) })
}

// fakeProcess is a receiver that lives for a number of kills, then is
// found to have exited on its own; or that does not come back.
type fakeProcess struct {
	lives      int // kills that hit a live process
	startFails bool
	frozen     bool
	kills      int
	starts     int
	freezes    int
	// startTakes is how long Start takes on sim's clock.
	startTakes time.Duration
	sim        *sched.Sim
}

var errExited = errors.New(`receiver "r" exited on its own (exit status 7)`)

func (p *fakeProcess) Kill() error {
	if p.kills == p.lives {
		return errExited
	}
	p.kills++
	return nil
}

func (p *fakeProcess) Start(context.Context) error {
	if p.startFails {
		return errors.New("port taken")
	}
	p.starts++
	if p.startTakes > 0 {
		_ = p.sim.Sleep(context.Background(), p.startTakes)
	}
	return nil
}

func (p *fakeProcess) Freeze() error {
	if p.lives == 0 {
		return errExited
	}
	p.frozen = true
	p.freezes++
	return nil
}

func (p *fakeProcess) Thaw() error { p.frozen = false; return nil }
