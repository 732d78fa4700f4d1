package nemesis

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// jumpingServer is a private issuer's one server whose clock jumps.
type jumpingServer struct {
	oneServer
	jumps []time.Duration
	at    []time.Duration
}

func (j *jumpingServer) JumpClock(_ context.Context, d time.Duration) error {
	j.jumps = append(j.jumps, d)
	j.at = append(j.at, time.Duration(j.sim.Now()))
	return nil
}

// holdAt has worker reach its pause point on resource with token at, and
// records when it resumed.
func holdAt(env *fakeenv.Env, f *IssuerClock, worker int, resource string, token uint64, at time.Duration, resumed *time.Duration) func() {
	return func() {
		_ = env.Sim.Sleep(context.Background(), at)
		f.Pause(context.Background(), env, PausePoint{Worker: worker, Resource: resource, Token: token})
		*resumed = time.Duration(env.Sim.Now())
	}
}

// TestIssuerClockTwoHolders: the first worker at its pause point in the
// fault phase makes the issuer's clock jump (four lease TTLs, at least a
// second) and is held until a newer holder of its resource stands at its
// pause point; that newer holder is held until the older holder's write
// was accepted, so the older one writes inside the newer one's lease.
// A holder of another resource is not held, and the clock jumps once.
func TestIssuerClockTwoHolders(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	servers := &jumpingServer{oneServer: oneServer{newFakeServers(env.Sim, 0)}}
	f := NewIssuerClock()
	f.AttachIssuer(ShareIssuer(servers))
	env.OpenAt(70*time.Millisecond, func() sched.Gate { return env.NewerAccepted("r0", 6) }) // the older holder's write, token 7, accepted
	var older, other, newer, later time.Duration
	phase(t, env, f, time.Second,
		holdAt(env, f, 0, "r0", 7, 10*time.Millisecond, &older),
		holdAt(env, f, 2, "r1", 3, 30*time.Millisecond, &other),
		holdAt(env, f, 1, "r0", 8, 50*time.Millisecond, &newer),
		holdAt(env, f, 3, "r0", 9, 90*time.Millisecond, &later))
	assert.Equal(t, []time.Duration{time.Second}, servers.jumps, "one jump, of at least a second")
	assert.Equal(t, []time.Duration{10 * time.Millisecond}, servers.at, "when the first holder reached its pause point")
	assert.Equal(t, 50*time.Millisecond, older, "the older holder resumes once the newer one stands at its pause point")
	assert.Equal(t, 70*time.Millisecond, newer, "the newer holder resumes once the older holder's write was accepted")
	assert.Equal(t, 30*time.Millisecond, other, "a holder of another resource is not held")
	assert.Equal(t, 90*time.Millisecond, later, "only the first newer holder is held")
	assert.Equal(t, []string{
		"issuer-clock begin: redis-server's clock jumps 1s forward while worker 0 holds token 7 on r0",
		"issuer-clock end: redis-server's clock reads 1s ahead: its leases ran out on it at once; worker 0, holding token 7, waits for a newer holder of r0",
	}, env.Details())
	assert.Equal(t, []int{0, 1}, env.Holds, "both holders extend a run bounded by its operations")
	assert.Empty(t, env.Fails)
}

// TestIssuerClockNoNewerHolder: an older holder whose resource nobody
// else takes resumes after eight lease TTLs, and the events say so.
func TestIssuerClockNoNewerHolder(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	servers := &jumpingServer{oneServer: oneServer{newFakeServers(env.Sim, 0)}}
	f := NewIssuerClock()
	f.Jump = 3 * time.Second
	f.AttachIssuer(ShareIssuer(servers))
	var older time.Duration
	phase(t, env, f, 2*time.Second, holdAt(env, f, 0, "r0", 7, 10*time.Millisecond, &older))
	assert.Equal(t, []time.Duration{3 * time.Second}, servers.jumps)
	assert.Equal(t, 810*time.Millisecond, older)
	require.Len(t, env.Details(), 4)
	assert.Contains(t, env.LastDetail(), "worker 0 resumes")
	assert.Contains(t, env.Details()[2], "no newer holder of r0 stood at its pause point in time")
}

// TestIssuerClockNeedsAClockThatJumps: servers whose clock cannot jump
// fail the run at the first pause point; a worker before the fault phase
// makes no jump; and the fault needs an issuer's servers at all.
func TestIssuerClockNeedsAClockThatJumps(t *testing.T) {
	t.Parallel()
	before := fakeenv.New()
	early := NewIssuerClock()
	servers := &jumpingServer{oneServer: oneServer{newFakeServers(before.Sim, 0)}}
	early.AttachIssuer(ShareIssuer(servers))
	simulate(t, before, func() { early.Pause(context.Background(), before, PausePoint{Resource: "r0", Token: 7}) })
	assert.Empty(t, servers.jumps, "before the fault phase nothing jumps")

	env := fakeenv.New()
	f := NewIssuerClock()
	f.AttachIssuer(ShareIssuer(oneServer{newFakeServers(env.Sim, 0)}))
	var resumed time.Duration
	phase(t, env, f, time.Second, holdAt(env, f, 0, "r0", 7, 10*time.Millisecond, &resumed))
	require.Len(t, env.Fails, 1)
	assert.Contains(t, env.Fails[0].Error(), "the issuer's clock cannot jump")
	assert.Error(t, NewIssuerClock().Available(Site{}))
	assert.NoError(t, NewIssuerClock().Available(Site{IssuerServers: true}))
}
