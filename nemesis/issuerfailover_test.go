package nemesis

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
	"github.com/fencecheck/fencecheck/sched"
)

// fakeReplica is a primary (r0) and its replica (r1) on a simulated
// clock: the test issues the primary's tokens (issue), and a failover
// takes a tenth of a second.
type fakeReplica struct {
	*fakeServers
	sim      *sched.Sim
	primary  int // the primary's number
	want     int
	issued   int
	reached  func()
	refused  int
	promoted time.Duration // when the promotion was recorded; -1 before
}

func (f *fakeReplica) Servers() []string          { return []string{"r0", "r1"} }
func (f *fakeReplica) Leader(context.Context) int { return f.primary }

func (f *fakeReplica) HoldReplica(context.Context) (string, error) {
	f.act("hold", 1, false)
	return "r1 held", nil
}

func (f *fakeReplica) AfterIssued(n int, fn func()) { f.want, f.reached = n, fn }

// issue issues a token on the primary at the given time.
func (f *fakeReplica) issue(at time.Duration) func() {
	return func() {
		_ = f.sim.Sleep(context.Background(), at)
		f.issued++
		if f.reached != nil && f.issued == f.want {
			f.reached()
		}
	}
}

func (f *fakeReplica) Failover(ctx context.Context) (string, error) {
	f.act("failover", 0, true)
	f.primary = 1
	f.promoted = time.Duration(f.sim.Now())
	_ = f.sim.Sleep(ctx, 100*time.Millisecond) // the old primary rejoins
	return fmt.Sprintf("r1 promoted; %d tokens issued, %d refused", f.issued, f.refused), nil
}

// TestIssuerFailoverComesOnTheGrants: the replica falls behind as the
// fault phase begins, and the failover comes with the primary's third
// token since, whenever that is; the promotion is recorded as a leader
// change before the issuer moves, and a worker at its pause point waits
// until the failover is over (one before it does not). The end event
// says what became of the tokens issued while the replica was behind.
func TestIssuerFailoverComesOnTheGrants(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		refused int
		end     string
	}{
		{"asynchronous", 0, "r1 promoted; 3 tokens issued, 0 refused"},
		{"grants wait for the replica", 3, "r1 promoted; 3 tokens issued, 3 refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			servers := &fakeReplica{fakeServers: newFakeServers(env.Sim, 0), sim: env.Sim, refused: tc.refused, promoted: -1}
			f := NewIssuerFailover()
			require.NoError(t, f.CanAct(servers))
			f.AttachIssuer(ShareIssuer(servers))
			var before, during time.Duration
			phase(t, env, f, 5*time.Second,
				servers.issue(10*time.Millisecond), servers.issue(700*time.Millisecond), servers.issue(2*time.Second),
				pauseAt(env, f, 0, time.Second, &before), pauseAt(env, f, 1, 2050*time.Millisecond, &during))
			assert.Equal(t, []string{"hold 1", "failover 0"}, servers.actions)
			assert.Equal(t, []time.Duration{0, 2 * time.Second}, servers.at, "held at once, failed over on the third token")
			assert.Equal(t, 2*time.Second, servers.promoted)
			assert.Equal(t, []string{
				"issuer-failover begin: r1 held; failover once r0 issued 3 more tokens",
				"issuer-failover leader: the leader is now r1: r0 SIGKILLed and r1 promoted in its place",
				"issuer-failover end: failover: " + tc.end,
			}, env.Details())
			assert.Equal(t, time.Second, before, "no worker waits while the replica falls behind")
			assert.Equal(t, 2100*time.Millisecond, during, "a worker waits while the failover is under way")
			assert.Empty(t, env.Fails)
		})
	}
}

// TestIssuerFailoverWithoutEnoughGrants: a fault phase that ends before
// the primary issued the tokens makes no failover and records no end, so
// that no grant counts as one after a failover.
func TestIssuerFailoverWithoutEnoughGrants(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	servers := &fakeReplica{fakeServers: newFakeServers(env.Sim, 0), sim: env.Sim}
	f := NewIssuerFailover()
	f.AttachIssuer(ShareIssuer(servers))
	phase(t, env, f, time.Second, servers.issue(10*time.Millisecond))
	assert.Equal(t, []string{"hold 1"}, servers.actions)
	require.Len(t, env.Details(), 1)
	assert.Contains(t, env.Details()[0], "issuer-failover begin: ")
	assert.Empty(t, env.Fails)
}

// TestIssuerFailoverNeedsAReplica: on servers without a replica the fault
// cannot act, and says why.
func TestIssuerFailoverNeedsAReplica(t *testing.T) {
	t.Parallel()
	env := fakeenv.New()
	servers := newFakeServers(env.Sim, 0)
	f := NewIssuerFailover()
	assert.ErrorIs(t, f.CanAct(servers), errNoReplica)
	f.AttachIssuer(ShareIssuer(servers))
	phase(t, env, f, time.Second)
	require.Len(t, env.Fails, 1)
	assert.ErrorContains(t, env.Fails[0], "issuer-failover fault: issuer-failover needs an issuer that can hold its replica behind")
	assert.Empty(t, servers.actions)
	assert.Equal(t, &Unavailable{Fault: "issuer-failover", Needs: NeedIssuerServers}, f.Available(Site{}))
}
