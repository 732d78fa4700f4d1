package etcdlease_test

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
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

// etcdLeaseID reads the etcd lease of a grant from its event.
var etcdLeaseID = regexp.MustCompile(`etcd lease ([0-9a-f]+)`)

// TestRenewAndHeld: on a one-member cluster, Held is true while the
// holder's lock key stands and Renew records a renew event; once the
// holder's etcd lease is revoked behind the service's back (as a cluster
// that lost it would), Held is false and Renew is lease.ErrNotHeld; and
// a lease the nemesis ended is neither held nor renewable.
func TestRenewAndHeld(t *testing.T) {
	t.Parallel()
	c, err := embedded.Start(context.Background(), t.TempDir(), embedded.Options{Members: 1, ReadyTimeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	rt := sched.NewReal()
	rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt, Retain: true})
	life, end := context.WithCancel(context.Background())
	svc, err := etcdlease.New(c.Endpoints).OpenService(context.Background(), lease.Env{Life: life, Runtime: rt, Recorder: rec, TTL: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() {
		end()
		assert.NoError(t, svc.Close())
	})
	var (
		_ lease.Renewer       = svc
		_ lease.HolderChecker = svc
	)
	ctx := context.Background()

	a, err := svc.Acquire(ctx, "a", 0)
	require.NoError(t, err)
	held, err := svc.Held(ctx, a)
	require.NoError(t, err)
	assert.True(t, held)
	require.NoError(t, svc.Renew(ctx, a))
	var renews []string
	for _, e := range leaseEvents(rec, histories.FRenew) {
		renews = append(renews, e.Detail)
	}
	assert.Contains(t, renews, fmt.Sprintf("worker 0 renews its etcd lease %s for 3600 s", grantedLease(t, rec, a)))
	held, err = svc.Held(ctx, lease.Lease{Resource: "a", Token: a.Token + 1, Worker: 0})
	require.NoError(t, err)
	assert.False(t, held, "another token")

	id, err := strconv.ParseInt(grantedLease(t, rec, a), 16, 64)
	require.NoError(t, err)
	_, err = cli.Revoke(ctx, clientv3.LeaseID(id))
	require.NoError(t, err)
	held, err = svc.Held(ctx, a)
	require.NoError(t, err)
	assert.False(t, held, "the lock key went with the revoked etcd lease")
	require.ErrorIs(t, svc.Renew(ctx, a), lease.ErrNotHeld)

	b, err := svc.Acquire(ctx, "b", 1)
	require.NoError(t, err)
	require.True(t, svc.ExpireToken("b", b.Token))
	held, err = svc.Held(ctx, b)
	require.NoError(t, err)
	assert.False(t, held)
	require.ErrorIs(t, svc.Renew(ctx, b), lease.ErrNotHeld)
}

// grantedLease is the etcd lease ID (hex) of l's grant.
func grantedLease(t *testing.T, rec *histories.Recorder, l lease.Lease) string {
	t.Helper()
	for _, e := range leaseEvents(rec, histories.FAcquire) {
		if e.Resource == l.Resource && e.Token == l.Token {
			m := etcdLeaseID.FindStringSubmatch(e.Detail)
			require.NotNil(t, m, e.Detail)
			return m[1]
		}
	}
	t.Fatalf("no grant of %+v", l)
	return ""
}
