package zklease

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/sched"
)

// openPrivate opens a private issuer's service with leases of ttl in a
// temporary run directory, closed by closeSvc or when the test ends.
func openPrivate(t *testing.T, ttl time.Duration) (svc *PrivateService, dir string, closeSvc func() error) {
	t.Helper()
	if shared == "" {
		t.Skip(skip)
	}
	dir = schema.TempDir(t)
	f, err := os.Create(filepath.Join(dir, "history.jsonl"))
	require.NoError(t, err)
	rt := sched.NewReal()
	rec := histories.NewRecorder(f, histories.RecorderOptions{Clock: rt})
	life, end := context.WithCancel(context.Background())
	opened, err := NewPrivateIssuer(lease.DefaultPollOptions()).Open(context.Background(), lease.Env{Life: life, Runtime: rt, Recorder: rec, TTL: ttl, Dir: dir})
	require.NoError(t, err)
	svc = opened.(*PrivateService)
	closeSvc = sync.OnceValue(func() error {
		end()
		return errors.Join(svc.Close(), rec.Close())
	})
	t.Cleanup(func() { require.NoError(t, closeSvc()) })
	return svc, dir, closeSvc
}

// TestPrivateIssuerFaults: the private server survives a SIGKILL and a
// SIGSTOP with its zxid: a grant after the server comes back carries a
// token above every grant before; its zoo.cfg and log stay in the run
// directory, its data does not.
func TestPrivateIssuerFaults(t *testing.T) {
	t.Parallel()
	svc, dir, closeSvc := openPrivate(t, 200*time.Millisecond)
	ctx := context.Background()
	assert.Equal(t, []string{ServerName}, svc.Servers())
	grant := func() uint64 {
		l, err := svc.Acquire(ctx, "r", 0)
		require.NoError(t, err)
		svc.Release(l)
		return l.Token
	}
	t1 := grant()
	require.NoError(t, svc.Kill(0))
	require.NoError(t, svc.Start(ctx, 0))
	t2 := grant()
	require.NoError(t, svc.Freeze(0))
	require.NoError(t, svc.Thaw(0))
	t3 := grant()
	t.Logf("tokens %d, after a SIGKILL and restart %d, after a SIGSTOP and SIGCONT %d", t1, t2, t3)
	assert.Greater(t, t2, t1)
	assert.Greater(t, t3, t2)
	for _, f := range []string{"zoo.cfg", "zookeeper.log"} {
		assert.FileExists(t, filepath.Join(dir, "zookeeper", f))
	}
	assert.DirExists(t, filepath.Join(dir, "zookeeper", "data"))
	require.NoError(t, closeSvc())
	assert.NoDirExists(t, filepath.Join(dir, "zookeeper", "data"))
}

// TestPrivateIssuerSuspend: a paused holder's lease ends by its
// session's expiry on the server, which the service records, and the
// next grant carries a higher token.
func TestPrivateIssuerSuspend(t *testing.T) {
	t.Parallel()
	svc, _, _ := openPrivate(t, 100*time.Millisecond)
	ctx := context.Background()
	l, err := svc.Acquire(ctx, "r", 0)
	require.NoError(t, err)
	ended := make(chan struct{})
	within, ok := svc.Suspend("r", l.Token, func() { close(ended) })
	require.True(t, ok)
	assert.Positive(t, within)
	select {
	case <-ended:
	case <-time.After(time.Minute): // a bound for a broken server, not a timing
		t.Fatalf("the suspended lease did not end (the service expected it within %v)", within)
	}
	l2, err := svc.Acquire(ctx, "r", 1)
	require.NoError(t, err)
	assert.Greater(t, l2.Token, l.Token)
	svc.Release(l2)
}

// TestIssuer: the issuer of a server the user runs (zookeeper://…)
// serves leases from it, lets a suspended holder's lease end by its
// session's expiry, and leaves nothing behind when it closes (TestMain
// checks the server).
func TestIssuer(t *testing.T) {
	t.Parallel()
	if shared == "" {
		t.Skip(skip)
	}
	f, err := os.Create(filepath.Join(schema.TempDir(t), "history.jsonl"))
	require.NoError(t, err)
	rt := sched.NewReal()
	rec := histories.NewRecorder(f, histories.RecorderOptions{Clock: rt})
	t.Cleanup(func() { _ = rec.Close() })
	iss := NewIssuer("zookeeper://"+shared, []string{shared}, lease.DefaultPollOptions())
	assert.Equal(t, Tokens, iss.TokenSource())
	ctx := context.Background()
	opened, err := iss.Open(ctx, lease.Env{Life: ctx, Runtime: rt, Recorder: rec, TTL: 2 * tick})
	require.NoError(t, err)
	svc := opened.(*Service)
	l, err := svc.Acquire(ctx, "r", 0)
	require.NoError(t, err)
	ended := make(chan struct{})
	_, ok := svc.Suspend("r", l.Token, func() { close(ended) })
	require.True(t, ok)
	<-ended // the session expires on the server; a broken one hangs the test's deadline
	l2, err := svc.Acquire(ctx, "r", 1)
	require.NoError(t, err)
	assert.Greater(t, l2.Token, l.Token)
	require.NoError(t, svc.Close())
}
