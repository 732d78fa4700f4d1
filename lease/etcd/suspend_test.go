package etcdlease_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	etcdlease "github.com/fencecheck/fencecheck/lease/etcd"
	"github.com/fencecheck/fencecheck/lease/etcd/embedded"
	"github.com/fencecheck/fencecheck/sched"
)

type suspender interface {
	Suspend(resource string, token uint64, ended func()) (time.Duration, bool)
}

// waitClosed waits for ch; the bound only ends a broken test.
func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("timed out waiting until %s", what)
	}
}

// TestSuspendLetsTheLeaseRunOut: a suspended lease is no longer renewed,
// so it runs out on the cluster by its TTL (2 s, etcd's minimum): the
// expiry is recorded, the caller told, and the waiting worker gets the
// lock with a higher token; nothing is revoked. A lease that is not the
// current one, or already suspended, cannot be suspended.
func TestSuspendLetsTheLeaseRunOut(t *testing.T) {
	t.Parallel()
	svc, rec := open(t, 100*time.Millisecond)
	first, err := svc.Acquire(context.Background(), "r", 0)
	require.NoError(t, err)
	next := make(chan lease.Lease)
	wait, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, not what is waited for
	defer cancel()
	go func() {
		l, err := svc.Acquire(wait, "r", 1)
		assert.NoError(t, err)
		next <- l
	}()
	s := svc.(suspender)
	_, ok := s.Suspend("r", first.Token+1, func() {})
	assert.False(t, ok, "not the current lease")
	ended := make(chan struct{})
	within, ok := s.Suspend("r", first.Token, func() { close(ended) })
	require.True(t, ok)
	assert.Equal(t, 3*2*time.Second+5*time.Second, within, "three TTLs and a request timeout")
	_, ok = s.Suspend("r", first.Token, func() {})
	assert.False(t, ok, "already suspended")
	waitClosed(t, ended, "the suspended lease ran out")
	second := <-next
	assert.Greater(t, second.Token, first.Token)
	var fs []string
	for _, e := range rec.Events() {
		fs = append(fs, e.F)
	}
	assert.Equal(t, []string{histories.FAcquire, histories.FExpire, histories.FAcquire}, without(fs, histories.FRenew))
	expiries := leaseEvents(rec, histories.FExpire)
	require.Len(t, expiries, 1)
	assert.Equal(t, first.Token, expiries[0].Token)
	svc.Release(second)
}

// TestSuspendedLeaseAtClose: the caller waiting for a suspended lease
// that has not run out is told when the service closes, which does not
// wait for the lease.
func TestSuspendedLeaseAtClose(t *testing.T) {
	t.Parallel()
	c, err := embedded.Start(context.Background(), t.TempDir(), embedded.Options{Members: 1, ReadyTimeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	rt := sched.NewReal()
	life, end := context.WithCancel(context.Background())
	defer end()
	svc, err := etcdlease.New(c.Endpoints).Open(context.Background(), lease.Env{Life: life, Runtime: rt,
		Recorder: histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt}), TTL: time.Hour})
	require.NoError(t, err)
	l, err := svc.Acquire(context.Background(), "r", 0)
	require.NoError(t, err)
	ended := make(chan struct{})
	_, ok := svc.(suspender).Suspend("r", l.Token, func() { close(ended) })
	require.True(t, ok)
	require.NoError(t, svc.(io.Closer).Close()) // the run's life still goes on
	waitClosed(t, ended, "Close told the caller")
}
