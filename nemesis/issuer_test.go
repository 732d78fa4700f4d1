package nemesis

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// fakeServers is a three-server issuer on a simulated clock: a server
// that goes down while it leads is replaced by the next one up, electIn
// after it went down; a server that comes back follows.
type fakeServers struct {
	sim     *sched.Sim
	electIn time.Duration
	leader  int
	downAt  int64 // when the leader went down; -1 while it is up
	down    map[int]bool
	actions []string // "kill 1", "start 1", "freeze 0", "thaw 0", in order
	at      []time.Duration
	killErr error
	upErr   error
}

func newFakeServers(sim *sched.Sim, leader int) *fakeServers {
	return &fakeServers{sim: sim, electIn: time.Second, leader: leader, downAt: -1, down: map[int]bool{}}
}

func (f *fakeServers) Servers() []string { return []string{"s0", "s1", "s2"} }

func (f *fakeServers) Leader(context.Context) int {
	if f.downAt >= 0 {
		if f.sim.Now() < f.downAt+int64(f.electIn) {
			return -1
		}
		for i := range 3 {
			if !f.down[i] {
				f.leader, f.downAt = i, -1
				break
			}
		}
	}
	return f.leader
}

func (f *fakeServers) act(what string, i int, down bool) {
	f.actions = append(f.actions, fmt.Sprintf("%s %d", what, i))
	f.at = append(f.at, time.Duration(f.sim.Now()))
	if down && i == f.Leader(context.Background()) {
		f.downAt = f.sim.Now()
	}
	f.down[i] = down
}

func (f *fakeServers) Kill(i int) error {
	if f.killErr != nil {
		return f.killErr
	}
	f.act("kill", i, true)
	return nil
}

func (f *fakeServers) Start(_ context.Context, i int) error {
	if f.upErr != nil {
		return f.upErr
	}
	f.act("start", i, false)
	return nil
}

func (f *fakeServers) Freeze(i int) error {
	if f.killErr != nil {
		return f.killErr
	}
	f.act("freeze", i, true)
	return nil
}

func (f *fakeServers) Thaw(i int) error {
	if f.upErr != nil {
		return f.upErr
	}
	f.act("thaw", i, false)
	return nil
}

// issuerFault is one of the two faults under test, and its words.
type issuerCase struct {
	name     string
	new      func() issuerActor
	down, up string // fakeServers' words for its actions
	signal   string
	back     string
}

// issuerActor is what the harness sees of an issuer fault.
type issuerActor interface {
	IssuerAttacher
	Pauser
	Actor
}

var issuerCases = []issuerCase{
	{"issuer-kill", func() issuerActor { return NewIssuerKill() }, "kill", "start", "SIGKILL", "rejoined and serves"},
	{"issuer-pause", func() issuerActor { return NewIssuerPause() }, "freeze", "thaw", "SIGSTOP", "resumed (SIGCONT)"},
}

// phase runs f's Act from time 0 until end, as the harness runs it for
// the fault phase, beside the other tasks fns start.
func phase(t *testing.T, env *fakeenv.Env, f Actor, end time.Duration, fns ...func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	simulate(t, env, func() {
		g := sched.NewGroup(env.Sim)
		env.Sim.AfterFunc(end, cancel)
		g.Go(func() { f.Act(ctx, env) })
		for _, fn := range fns {
			g.Go(fn)
		}
		g.Wait(context.Background(), 0)
	})
}

// pauseAt has a worker reach its pause point at, and returns when it
// resumed.
func pauseAt(env *fakeenv.Env, p Pauser, worker int, at time.Duration, resumed *time.Duration) func() {
	return func() {
		_ = env.Sim.Sleep(context.Background(), at)
		p.Pause(context.Background(), env, PausePoint{Worker: worker, Resource: "r0", Token: 7})
		*resumed = time.Duration(env.Sim.Now())
	}
}

// TestIssuerFaultFirstOutage: the first worker at its pause point in the
// fault phase takes the leader down, waits until another server leads
// (the election takes a second here), a random while longer, and brings
// it back; the events name the server and the leader before and after,
// and a worker that reaches its pause point meanwhile waits until the
// server is back. The fault is not even active: the first outage does
// not wait for the schedule.
func TestIssuerFaultFirstOutage(t *testing.T) {
	t.Parallel()
	for _, tc := range issuerCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = []float64{0.5, 0.25} // Act's first interval; the down time: a quarter of two TTLs
			servers := newFakeServers(env.Sim, 1)
			f := tc.new()
			inner(f).Every = time.Hour // Act draws no more
			f.AttachIssuer(ShareIssuer(servers))
			var first, second time.Duration
			phase(t, env, f, 2*time.Second, pauseAt(env, f, 0, 10*time.Millisecond, &first), pauseAt(env, f, 1, 500*time.Millisecond, &second))
			assert.Equal(t, []string{tc.down + " 1", tc.up + " 1"}, servers.actions)
			// Elected at the first poll a second after the outage; up 50ms later.
			assert.Equal(t, []time.Duration{10 * time.Millisecond, 1060 * time.Millisecond}, servers.at)
			assert.Equal(t, []string{
				tc.name + " begin: " + tc.signal + " to s1 (the leader)",
				tc.name + " leader: the leader is now s0 (was s1)",
				tc.name + " end: s1 " + tc.back + " after 1.05s; the leader is s0",
			}, env.Details())
			assert.Equal(t, 1060*time.Millisecond, first, "the worker that caused the outage waits through it")
			assert.Equal(t, 1060*time.Millisecond, second, "a worker at its pause point waits while a server is down")
			assert.Empty(t, env.Fails)
		})
	}
}

// oneServer is a private issuer's one server, which has no leader.
type oneServer struct{ *fakeServers }

func (oneServer) Servers() []string          { return []string{"redis-server"} }
func (oneServer) Leader(context.Context) int { return -1 }

// TestIssuerFaultOneServer: an issuer with a single server (a private
// redis-server or PostgreSQL cluster) has no leader: the first outage
// takes that server down at once, without waiting for a leader to
// appear, and the events say it is the only one.
func TestIssuerFaultOneServer(t *testing.T) {
	t.Parallel()
	for _, tc := range issuerCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.Floats = []float64{0.5, 0.25} // Act's first interval; the down time: a quarter of two TTLs
			servers := oneServer{newFakeServers(env.Sim, 0)}
			f := tc.new()
			inner(f).Every = time.Hour // Act draws no more
			f.AttachIssuer(ShareIssuer(servers))
			var first time.Duration
			phase(t, env, f, 2*time.Second, pauseAt(env, f, 0, 10*time.Millisecond, &first))
			assert.Equal(t, []string{tc.down + " 0", tc.up + " 0"}, servers.actions)
			assert.Equal(t, []time.Duration{10 * time.Millisecond, 60 * time.Millisecond}, servers.at, "down at once, up a random while later")
			assert.Equal(t, []string{
				tc.name + " begin: " + tc.signal + " to redis-server (the issuer's only server)",
				tc.name + " end: redis-server " + tc.back + " after 50ms; a single server has no leader",
			}, env.Details())
			assert.Equal(t, 60*time.Millisecond, first)
			assert.Empty(t, env.Fails)
		})
	}
}

// TestIssuerFaultWaitsForTheFaultPhase: a worker that reaches its pause
// point before the fault phase began causes no outage.
func TestIssuerFaultWaitsForTheFaultPhase(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	servers := newFakeServers(env.Sim, 0)
	f := NewIssuerKill()
	f.AttachIssuer(ShareIssuer(servers))
	simulate(t, env, func() { f.Pause(context.Background(), env, PausePoint{}) })
	assert.Empty(t, servers.actions)
	assert.Empty(t, env.Events)
}

// TestIssuerFaultLaterOutages: after the first, outages come while the
// fault is active, one server down at a time, hitting the leader with
// probability LeaderShare (a follower otherwise); none while inactive.
func TestIssuerFaultLaterOutages(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		active      bool
		leaderShare float64
		later       string // the target of later outages: "leader", "follower" or "" for none
	}{
		{"inactive: the first outage only", false, 0.5, ""},
		{"active, followers", true, 0, "follower"},
		{"active, leaders", true, 1, "leader"},
	}
	for _, fc := range issuerCases {
		for _, tc := range cases {
			t.Run(fc.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				env := fakeenv.New() // draws of 0.5: intervals of 300ms plus the last outage, downs of 100ms
				servers := newFakeServers(env.Sim, 2)
				servers.electIn = 100 * time.Millisecond
				f := fc.new()
				f.SetActive(tc.active)
				inner(f).LeaderShare = tc.leaderShare
				f.AttachIssuer(ShareIssuer(servers))
				var resumed time.Duration
				phase(t, env, f, 3*time.Second, pauseAt(env, f, 0, time.Millisecond, &resumed))
				require.Empty(t, env.Fails)
				require.GreaterOrEqual(t, len(servers.actions), 2)
				assert.Equal(t, fc.down+" 2", servers.actions[0], "the first outage takes the leader down")
				downs := 0
				for i, a := range servers.actions {
					if i%2 == 0 {
						downs++
						require.Equal(t, fc.down, a[:len(fc.down)], "one server down at a time: %v", servers.actions)
						continue
					}
					require.Equal(t, fc.up+servers.actions[i-1][len(fc.down):], a, "the server that went down comes back: %v", servers.actions)
				}
				if tc.later == "" {
					assert.Equal(t, 1, downs, "no outage while inactive: %v", servers.actions)
					return
				}
				assert.Greater(t, downs, 2, "outages while active: %v", servers.actions)
				leaders := env.Begins(fc.name) - countDetail(env, "(a follower;")
				if tc.later == "leader" {
					assert.Equal(t, downs, leaders, "%v", env.Details())
				} else {
					assert.Equal(t, 1, leaders, "%v", env.Details())
				}
			})
		}
	}
}

// inner is the machinery the two faults share, to set its fields.
func inner(f issuerActor) *issuerFault {
	switch f := f.(type) {
	case *IssuerKill:
		return &f.issuerFault
	case *IssuerPause:
		return &f.issuerFault
	}
	panic(fmt.Sprintf("%T is no issuer fault", f))
}

func countDetail(env *fakeenv.Env, part string) int {
	n := 0
	for _, d := range env.Details() {
		if hasDetail([]string{d}, part) {
			n++
		}
	}
	return n
}

// TestIssuerFaultsTakeTurns: with both faults in a run, the second's
// outage waits until the first's server is back: one server down at a
// time.
func TestIssuerFaultsTakeTurns(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	servers := newFakeServers(env.Sim, 0)
	shared := ShareIssuer(servers)
	kill, pause := NewIssuerKill(), NewIssuerPause()
	kill.AttachIssuer(shared)
	pause.AttachIssuer(shared)
	var a, b time.Duration
	ctx, cancel := context.WithCancel(context.Background())
	simulate(t, env, func() {
		g := sched.NewGroup(env.Sim)
		env.Sim.AfterFunc(5*time.Second, cancel)
		g.Go(func() { kill.Act(ctx, env) })
		g.Go(func() { pause.Act(ctx, env) })
		g.Go(pauseAt(env, kill, 0, time.Millisecond, &a))
		g.Go(pauseAt(env, pause, 1, 2*time.Millisecond, &b))
		g.Wait(context.Background(), 0)
	})
	require.Len(t, servers.actions, 4)
	assert.Equal(t, []string{"kill 0", "start 0", "freeze 1"}, servers.actions[:3], "the pause waited for the killed leader to come back")
	assert.Equal(t, "thaw 1", servers.actions[3])
	assert.Equal(t, servers.at[1], servers.at[2], "and took its leader down as soon as it was back")
	assert.Equal(t, servers.at[1], a)
	assert.Equal(t, servers.at[3], b)
}

// TestIssuerFaultFailures: a server found gone is no outage (nothing is
// recorded) and fails the run; one that does not come back is recorded
// as such and fails the run; a fault the harness handed no servers fails
// it too.
func TestIssuerFaultFailures(t *testing.T) {
	t.Parallel()
	for _, fc := range issuerCases {
		t.Run(fc.name, func(t *testing.T) {
			t.Parallel()
			gone := errors.New("exited on its own")
			for _, tc := range []struct {
				name            string
				killErr, upErr  error
				attach          bool
				begins          int
				fail, lastEvent string
			}{
				{"gone", gone, nil, true, 0, "no live s0 to act on: exited on its own", ""},
				{"does not come back", nil, gone, true, 1, "s0 could not " + map[string]string{"issuer-kill": "start again", "issuer-pause": "resume"}[fc.name] + " after " + fc.signal, "s0 did not come back: exited on its own"},
				{"not attached", nil, nil, false, 0, "the run handed it no issuer servers", ""},
			} {
				t.Run(tc.name, func(t *testing.T) {
					env := fakeenv.New()
					servers := newFakeServers(env.Sim, 0)
					servers.killErr, servers.upErr = tc.killErr, tc.upErr
					f := fc.new()
					if tc.attach {
						f.AttachIssuer(ShareIssuer(servers))
					}
					var resumed time.Duration
					phase(t, env, f, time.Second, pauseAt(env, f, 0, time.Millisecond, &resumed))
					assert.Equal(t, tc.begins, env.Begins(fc.name))
					require.Len(t, env.Fails, 1)
					assert.ErrorContains(t, env.Fails[0], tc.fail)
					if tc.lastEvent != "" {
						assert.Equal(t, tc.lastEvent, env.LastDetail())
					}
				})
			}
		})
	}
}

// TestParseIssuerFaults: the issuer faults parse as extras, and a name
// that is none of them lists them.
func TestParseIssuerFaults(t *testing.T) {
	t.Parallel()
	faults, err := ParseWith("pause,issuer-kill,issuer-pause", IssuerExtra())
	require.NoError(t, err)
	require.Len(t, faults, 3)
	assert.IsType(t, &IssuerKill{}, faults[1])
	assert.IsType(t, &IssuerPause{}, faults[2])
	for _, f := range faults[1:] {
		assert.Implements(t, (*IssuerAttacher)(nil), f)
		assert.Implements(t, (*Pauser)(nil), f)
		assert.Implements(t, (*Actor)(nil), f)
		assert.NotImplements(t, (*StaleWriter)(nil), f)
	}
	_, err = ParseWith("issuer-crash", IssuerExtra())
	assert.ErrorContains(t, err, "issuer-kill, issuer-pause")
}

// TestIssuerFaultHoldsOnlyDuringTheFirstOutage: a worker at its pause
// point waits through the first outage, not through later ones; and the
// interval in which the first outage began passes without another.
func TestIssuerFaultHoldsOnlyDuringTheFirstOutage(t *testing.T) {
	t.Parallel()
	env := fakeenv.New() // draws of 0.5: intervals of 300ms plus the last outage, downs of 100ms, followers
	servers := newFakeServers(env.Sim, 2)
	servers.electIn = 100 * time.Millisecond
	f := NewIssuerKill()
	f.SetActive(true)
	f.AttachIssuer(ShareIssuer(servers))
	var first, during, later time.Duration
	phase(t, env, f, 1200*time.Millisecond,
		pauseAt(env, f, 0, time.Millisecond, &first),
		pauseAt(env, f, 1, 50*time.Millisecond, &during),
		pauseAt(env, f, 2, 850*time.Millisecond, &later))
	// The first outage 1–201ms; Act's interval ending at 300ms had it, so
	// the next outage begins at 800ms (300ms + 300ms + the 200ms it took).
	assert.Equal(t, []string{"kill 2", "start 2", "kill 2", "start 2"}, servers.actions)
	assert.Equal(t, []time.Duration{time.Millisecond, 201 * time.Millisecond, 800 * time.Millisecond, 900 * time.Millisecond}, servers.at)
	assert.Equal(t, 201*time.Millisecond, first)
	assert.Equal(t, 201*time.Millisecond, during, "held through the first outage")
	assert.Equal(t, 850*time.Millisecond, later, "not held through a later one")
}
