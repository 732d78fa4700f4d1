package nemesis

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/nemesis/internal/fakeenv"
)

// fakeRestorer is a three-server issuer whose snapshot is at token at and
// whose restore takes a second of simulated time.
type fakeRestorer struct {
	*fakeServers
	at       uint64
	snaps    []time.Duration
	restores []string // "bump" or "no bump", in order
	done     []time.Duration
	err      error
}

func (f *fakeRestorer) Snapshot(context.Context) (uint64, error) {
	f.snaps = append(f.snaps, time.Duration(f.sim.Now()))
	return f.at, f.err
}

func (f *fakeRestorer) Restore(ctx context.Context, bump bool) (string, error) {
	f.restores = append(f.restores, map[bool]string{true: "bump", false: "no bump"}[bump])
	_ = f.sim.Sleep(ctx, time.Second)
	f.done = append(f.done, time.Duration(f.sim.Now()))
	return fmt.Sprintf("restored (bump %v)", bump), f.err
}

// TestIssuerRestoreOnEvents: the first worker at its pause point takes
// the snapshot; the restore comes at the pause point where RestoreGrants
// distinct tokens above the snapshot have been seen on every resource
// (tokens at or below it, and a token seen twice, do not count); a
// worker that reaches its pause point during the restore waits until the
// issuer serves again; the events say what was snapshotted and restored.
// There is one restore.
func TestIssuerRestoreOnEvents(t *testing.T) {
	t.Parallel()
	for _, f := range []*IssuerRestore{NewIssuerRestore(), NewIssuerRestoreBumped()} {
		t.Run(f.Name(), func(t *testing.T) {
			t.Parallel()
			env := fakeenv.New()
			env.ResourceNames = []string{"r0", "r1"}
			r := &fakeRestorer{fakeServers: newFakeServers(env.Sim, 0), at: 10}
			f.AttachIssuer(ShareIssuer(r))
			points := []PausePoint{
				{Worker: 0, Resource: "r0", Token: 7}, // the snapshot
				{Worker: 1, Resource: "r0", Token: 11},
				{Worker: 1, Resource: "r0", Token: 11}, // seen
				{Worker: 2, Resource: "r1", Token: 9},  // below the snapshot
				{Worker: 2, Resource: "r0", Token: 12},
				{Worker: 3, Resource: "r0", Token: 14},
				{Worker: 3, Resource: "r1", Token: 13},
				{Worker: 4, Resource: "r1", Token: 15},
				{Worker: 4, Resource: "r1", Token: 16}, // the third on r1: the restore
				{Worker: 5, Resource: "r1", Token: 17}, // after it: nothing
			}
			var last, waiter time.Duration
			walk := func() {
				for _, p := range points {
					_ = env.Sim.Sleep(context.Background(), 10*time.Millisecond)
					f.Pause(context.Background(), env, p)
				}
				last = time.Duration(env.Sim.Now())
			}
			during := func() {
				_ = env.Sim.Sleep(context.Background(), 500*time.Millisecond)
				f.Pause(context.Background(), env, PausePoint{Worker: 6, Resource: "r0", Token: 20})
				waiter = time.Duration(env.Sim.Now())
			}
			phase(t, env, f, 10*time.Second, walk, during)
			assert.Equal(t, []time.Duration{10 * time.Millisecond}, r.snaps)
			want := map[bool]string{true: "bump", false: "no bump"}[f.bump]
			assert.Equal(t, []string{want}, r.restores)
			assert.Equal(t, []time.Duration{1090 * time.Millisecond}, r.done, "restored from the ninth pause point on, for a second")
			assert.Equal(t, 1100*time.Millisecond, last)
			assert.Equal(t, 1090*time.Millisecond, waiter, "a worker at its pause point waits through the restore")
			assert.Equal(t, []string{
				f.Name() + " begin: snapshot of the issuer, its sequence at 10, while worker 0 holds token 7 on r0; it is restored after 3 grants above it on each resource",
				f.Name() + " restore: every server stopped and restored from the snapshot at 10, " + map[bool]string{false: "its sequence not bumped", true: "its sequence bumped past every grant"}[f.bump],
				f.Name() + fmt.Sprintf(" end: restored (bump %v); it serves again after 1s", f.bump),
			}, env.Details())
			assert.Empty(t, env.Fails)
		})
	}
}

// TestIssuerRestoreFails: an issuer that cannot be snapshotted or
// restored fails the run, saying so; one that is no lease.Restorer
// fails it at the start of the fault phase.
func TestIssuerRestoreFails(t *testing.T) {
	t.Parallel()
	t.Run("snapshot", func(t *testing.T) {
		t.Parallel()
		env := fakeenv.New()
		r := &fakeRestorer{fakeServers: newFakeServers(env.Sim, 0), err: errors.New("no member serves")}
		f := NewIssuerRestore()
		f.AttachIssuer(ShareIssuer(r))
		phase(t, env, f, time.Second, func() {
			f.Pause(context.Background(), env, PausePoint{Resource: "r0", Token: 1})
			f.Pause(context.Background(), env, PausePoint{Resource: "r0", Token: 2})
		})
		assert.Len(t, r.snaps, 1, "no second snapshot")
		assert.Len(t, env.Fails, 1)
		assert.ErrorContains(t, env.Fails[0], "issuer-restore fault: no member serves")
	})
	t.Run("not a restorer", func(t *testing.T) {
		t.Parallel()
		env := fakeenv.New()
		f := NewIssuerRestoreBumped()
		f.AttachIssuer(ShareIssuer(newFakeServers(env.Sim, 0)))
		phase(t, env, f, time.Second)
		assert.Len(t, env.Fails, 1)
		assert.ErrorContains(t, env.Fails[0], "issuer-restore-bumped fault: the run's issuer cannot be restored from a snapshot")
	})
}

// TestParseIssuerRestoreFaults: the restore faults parse as issuer
// extras, act at pause points and need an issuer that can be restored.
func TestParseIssuerRestoreFaults(t *testing.T) {
	t.Parallel()
	faults, err := ParseWith("issuer-restore,issuer-restore-bumped", IssuerExtra())
	if !assert.NoError(t, err) {
		return
	}
	for i, bump := range []bool{false, true} {
		f, ok := faults[i].(*IssuerRestore)
		if assert.True(t, ok, "%T", faults[i]) {
			assert.Equal(t, bump, f.bump)
		}
		assert.Implements(t, (*IssuerRestorer)(nil), faults[i])
		assert.Implements(t, (*Pauser)(nil), faults[i])
		assert.Implements(t, (*Actor)(nil), faults[i])
		assert.NotImplements(t, (*StaleWriter)(nil), faults[i])
		assert.Equal(t, &Unavailable{Fault: faults[i].Name(), Needs: NeedIssuerServers}, faults[i].Available(Site{}))
		assert.NoError(t, faults[i].Available(Site{IssuerServers: true}))
	}
}
