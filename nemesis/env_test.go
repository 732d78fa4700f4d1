package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// fakeEnv is the harness as a fault sees it, on a simulated clock: the
// random draws are scripted, the gates open when a test opens them, and
// what the fault asked of the run is recorded.
type fakeEnv struct {
	rt  *sched.Sim
	ttl time.Duration

	mu        sync.Mutex
	floats    []float64 // Float64 returns these in turn, then 0.5
	ints      []int     // IntN returns these in turn, then n/2
	events    []*histories.Event
	times     []time.Duration // the virtual time of each event
	fails     []error
	outlived  []string // "resource/token" for each OutliveLease
	expired   []string // the resource of each ExpireLease
	canExpire bool     // what ExpireLease reports
	resources []string
	accepted  map[string]sched.Gate
	sent      map[string]sched.Gate
}

func newFakeEnv() *fakeEnv {
	return &fakeEnv{rt: sched.NewSim(1), ttl: 100 * time.Millisecond, resources: []string{"r0"},
		accepted: map[string]sched.Gate{}, sent: map[string]sched.Gate{}}
}

func (e *fakeEnv) Runtime() sched.Runtime  { return e.rt }
func (e *fakeEnv) LeaseTTL() time.Duration { return e.ttl }
func (e *fakeEnv) Resources() []string     { return e.resources }

func (e *fakeEnv) Float64() float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.floats) == 0 {
		return 0.5
	}
	f := e.floats[0]
	e.floats = e.floats[1:]
	return f
}

func (e *fakeEnv) IntN(n int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.ints) == 0 {
		return n / 2
	}
	i := e.ints[0] % n
	e.ints = e.ints[1:]
	return i
}

func (e *fakeEnv) ExpireLease(r string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.expired = append(e.expired, r)
	return e.canExpire
}

func (e *fakeEnv) OutliveLease(r string, token uint64) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.outlived = append(e.outlived, fmt.Sprintf("%s/%d", r, token))
	return true
}

func (e *fakeEnv) gate(m map[string]sched.Gate, r string, token uint64) sched.Gate {
	e.mu.Lock()
	defer e.mu.Unlock()
	k := fmt.Sprintf("%s/%d", r, token)
	if m[k] == nil {
		m[k] = e.rt.NewGate()
	}
	return m[k]
}

func (e *fakeEnv) NewerAccepted(r string, token uint64) sched.Gate {
	return e.gate(e.accepted, r, token)
}

func (e *fakeEnv) NewerSent(r string, token uint64) sched.Gate { return e.gate(e.sent, r, token) }

func (e *fakeEnv) Record(ev *histories.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, ev)
	e.times = append(e.times, time.Duration(e.rt.Now()))
}

func (e *fakeEnv) Fail(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fails = append(e.fails, err)
}

// begins counts the recorded actions of fault, as coverage does.
func (e *fakeEnv) begins(fault string) int {
	n := 0
	for _, ev := range e.events {
		if ev.Fault == fault && ev.F == histories.FBegin {
			n++
		}
	}
	return n
}

// edges lists the recorded window edges as "AT +fault" or "AT -fault".
func (e *fakeEnv) edges() []string {
	var out []string
	for i, ev := range e.events {
		switch ev.F {
		case histories.FStart:
			out = append(out, fmt.Sprintf("%v +%s", e.times[i], ev.Fault))
		case histories.FStop:
			out = append(out, fmt.Sprintf("%v -%s", e.times[i], ev.Fault))
		}
	}
	return out
}

// details lists the recorded events as "fault F: detail".
func (e *fakeEnv) details() []string {
	var out []string
	for _, ev := range e.events {
		out = append(out, fmt.Sprintf("%s %s: %s", ev.Fault, ev.F, ev.Detail))
	}
	return out
}

// lastDetail is the detail of the last event recorded, "" for none.
func (e *fakeEnv) lastDetail() string {
	if len(e.events) == 0 {
		return ""
	}
	return e.events[len(e.events)-1].Detail
}

// openAt opens a gate at virtual time at, as the harness does when the
// event it stands for happens; at ≤ 0 leaves it shut.
func (e *fakeEnv) openAt(at time.Duration, g func() sched.Gate) {
	if at <= 0 {
		return
	}
	e.rt.Go(func() {
		_ = e.rt.Sleep(context.Background(), at)
		g().Open()
	})
}

// simulate runs fn as the first task of the simulation and returns the
// virtual time it took.
func (e *fakeEnv) simulate(t *testing.T, fn func()) time.Duration {
	t.Helper()
	var took time.Duration
	require.NoError(t, e.rt.Run(func() {
		fn()
		took = time.Duration(e.rt.Now())
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
	for _, d := range details {
		if strings.Contains(d, want) {
			return true
		}
	}
	return false
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
