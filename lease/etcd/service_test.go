package etcdlease_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	etcdlease "github.com/fencecheck/fencecheck/lease/etcd"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
	"github.com/fencecheck/fencecheck/sched"
)

// open starts a one-member cluster and opens a service on it whose
// events a retaining recorder keeps.
func open(t *testing.T, ttl time.Duration) (lease.Service, *histories.Recorder) {
	t.Helper()
	c, err := embedded.Start(context.Background(), t.TempDir(), embedded.Options{Members: 1, ReadyTimeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	rt := sched.NewReal()
	rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt, Retain: true})
	life, end := context.WithCancel(context.Background())
	svc, err := etcdlease.New(c.Endpoints).Open(context.Background(), lease.Env{Life: life, Runtime: rt, Recorder: rec, TTL: ttl})
	require.NoError(t, err)
	t.Cleanup(func() {
		end()
		assert.NoError(t, svc.(io.Closer).Close())
	})
	return svc, rec
}

func leaseEvents(rec *histories.Recorder, f string) []histories.Event {
	var out []histories.Event
	for _, e := range rec.Events() {
		if e.Actor == histories.ActorLease && e.F == f {
			out = append(out, e)
		}
	}
	return out
}

// TestGrantTokensIncrease: successive grants on a resource, by several
// workers and across resources that share the cluster's revisions, carry
// strictly increasing tokens, and each grant is recorded with the TTL
// etcd granted (100 ms asked: etcd's minimum applies).
func TestGrantTokensIncrease(t *testing.T) {
	t.Parallel()
	svc, rec := open(t, 100*time.Millisecond)
	last := map[string]uint64{}
	for i := range 12 {
		res := []string{"a", "a/b", "c"}[i%3]
		l, err := svc.Acquire(context.Background(), res, i%4)
		require.NoError(t, err)
		assert.Greater(t, l.Token, last[res], "grant %d on %s", i, res)
		last[res] = l.Token
		svc.Release(l)
	}
	grants := leaseEvents(rec, histories.FAcquire)
	require.Len(t, grants, 12)
	assert.Contains(t, grants[0].Detail, "TTL 2 s")
	assert.Len(t, leaseEvents(rec, histories.FRelease), 12)
}

// TestExpireRevokes: Expire revokes the holder's etcd lease, so a worker
// waiting for the resource gets it with a higher token; the revoke is
// recorded once the cluster answered it, before Expire returns (the next
// grant may be recorded before or after it); ExpireToken ends only the
// lease it names.
func TestExpireRevokes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		expire func(svc lease.Service, l lease.Lease) bool
	}{
		{"Expire", func(svc lease.Service, l lease.Lease) bool { return svc.Expire(l.Resource) }},
		{"ExpireToken", func(svc lease.Service, l lease.Lease) bool {
			return !svc.ExpireToken(l.Resource, l.Token+1000) && svc.ExpireToken(l.Resource, l.Token)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A TTL far beyond the test: only the revoke can free the lock.
			svc, rec := open(t, time.Hour)
			first, err := svc.Acquire(context.Background(), "r", 0)
			require.NoError(t, err)
			next := make(chan lease.Lease)
			// Bounded so that a revoke that frees nothing fails the test
			// instead of hanging it; it is not what the test waits for.
			wait, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			go func() {
				l, err := svc.Acquire(wait, "r", 1)
				assert.NoError(t, err)
				next <- l
			}()
			assert.True(t, tc.expire(svc, first))
			revokes := leaseEvents(rec, histories.FRevoke)
			require.Len(t, revokes, 1, "recorded by the time the revoke returned")
			assert.Equal(t, first.Token, revokes[0].Token)
			second := <-next
			assert.Greater(t, second.Token, first.Token)
			assert.False(t, svc.Expire("nothing-held"))
			var fs []string
			for _, e := range rec.Events() {
				fs = append(fs, e.F)
			}
			assert.ElementsMatch(t, []string{histories.FAcquire, histories.FRevoke, histories.FAcquire}, without(fs, histories.FRenew))
			assert.Equal(t, histories.FAcquire, fs[0])
			svc.Release(first) // stale: nothing happens
			svc.Release(second)
			assert.Len(t, leaseEvents(rec, histories.FRelease), 1)
		})
	}
}

func without(fs []string, f string) []string {
	var out []string
	for _, x := range fs {
		if x != f {
			out = append(out, x)
		}
	}
	return out
}

// TestStartAbove: a resource that held token 300 before the run gets its
// first token above 300 on a fresh cluster, whose revision is far lower;
// a gap wider than the service closes is left as it is.
func TestStartAbove(t *testing.T) {
	t.Parallel()
	svc, _ := open(t, time.Hour)
	floored := svc.(interface{ StartAbove(string, uint64) })
	floored.StartAbove("r", 300)
	l, err := svc.Acquire(context.Background(), "r", 0)
	require.NoError(t, err)
	assert.Greater(t, l.Token, uint64(300))
	svc.Release(l)

	floored.StartAbove("far", 1<<40)
	l, err = svc.Acquire(context.Background(), "far", 0)
	require.NoError(t, err)
	assert.Less(t, l.Token, uint64(1<<40), "not 2^40 writes")
	svc.Release(l)
}

// TestCloseDeletesTheRunsKeys: Close leaves nothing of the run in the
// cluster, not even the locks still held, and other keys stay.
func TestCloseDeletesTheRunsKeys(t *testing.T) {
	t.Parallel()
	c, err := embedded.Start(context.Background(), t.TempDir(), embedded.Options{Members: 1, ReadyTimeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	ctx := context.Background()
	_, err = cli.Put(ctx, "/fencecheck/not-ours", "x")
	require.NoError(t, err)

	rt := sched.NewReal()
	life, end := context.WithCancel(ctx)
	svc, err := etcdlease.New(c.Endpoints).Open(ctx, lease.Env{Life: life, Runtime: rt,
		Recorder: histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt}), TTL: time.Hour})
	require.NoError(t, err)
	for _, res := range []string{"a", "b"} {
		_, err := svc.Acquire(ctx, res, 0)
		require.NoError(t, err)
	}
	got, err := cli.Get(ctx, "/fencecheck/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	require.NoError(t, err)
	assert.Equal(t, int64(3), got.Count, "two held locks and the other key")
	end()
	require.NoError(t, svc.(io.Closer).Close())
	got, err = cli.Get(ctx, "/fencecheck/", clientv3.WithPrefix())
	require.NoError(t, err)
	require.Len(t, got.Kvs, 1)
	assert.Equal(t, "/fencecheck/not-ours", string(got.Kvs[0].Key))
}
