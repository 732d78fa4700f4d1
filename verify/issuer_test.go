package verify

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/sched"
)

// localIssuer is the run's own lease service on the real clock, with
// leases of ttl.
func localIssuer(t *testing.T, ttl time.Duration) (*lease.Local, *histories.Recorder) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	rt := sched.NewReal()
	rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt})
	return lease.NewLocal(ctx, rt, rec, ttl), rec
}

func issuerOptions(ttl time.Duration) IssuerOptions {
	o := DefaultIssuerOptions()
	o.RunID, o.TTL = "t", ttl
	return o
}

func issuerStatuses(t *testing.T, svc lease.Service, o IssuerOptions) map[string]Row {
	t.Helper()
	rows, err := RunIssuer(context.Background(), svc, o)
	require.NoError(t, err)
	require.Len(t, rows, len(issuerScenarios))
	got := make(map[string]Row)
	for _, r := range rows {
		got[r.Scenario] = r
		t.Logf("%s: %s (%s)", r.Scenario, r.Result, r.Observed)
	}
	return got
}

// wrap32 is an issuer with a 32-bit counter per resource that never
// makes anyone wait: its tokens wrap to 0 after 2^32-1.
type wrap32 struct {
	mu   sync.Mutex
	next map[string]uint32
}

func (w *wrap32) Acquire(_ context.Context, resource string, worker int) (lease.Lease, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next[resource]++
	return lease.Lease{Resource: resource, Token: uint64(w.next[resource]), Worker: worker}, nil
}
func (w *wrap32) StartAbove(resource string, token uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.next[resource] = uint32(token)
}
func (*wrap32) Release(lease.Lease)             {}
func (*wrap32) Expire(string) bool              { return true }
func (*wrap32) ExpireToken(string, uint64) bool { return true }

// forgetful grants every eleventh token again: an issuer that lost its
// counter, as Redis without appendfsync does when it crashes.
type forgetful struct {
	*lease.Local
	mu     sync.Mutex
	grants int
	last   uint64
}

func (f *forgetful) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	l, err := f.Local.Acquire(ctx, resource, worker)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.grants++
	if f.grants%11 == 0 {
		l.Token = f.last
	}
	f.last = l.Token
	return l, err
}

// TestIssuerBattery: the local service passes every scenario; an issuer
// that reuses a token fails the sequences that catch it, and one that
// wraps at 2^32 fails the boundaries.
func TestIssuerBattery(t *testing.T) {
	t.Parallel()
	t.Run("correct", func(t *testing.T) {
		t.Parallel()
		svc, _ := localIssuer(t, 20*time.Millisecond)
		got := issuerStatuses(t, svc, issuerOptions(20*time.Millisecond))
		for _, name := range IssuerNames() {
			assert.Equal(t, Pass, got[name].Result, "%s: %s", name, got[name].Observed)
		}
		assert.Contains(t, got["token-boundaries"].Observed, "2^32: 4294967295→4294967296→4294967297")
		assert.Contains(t, got["grant-after-ttl"].Observed, "after the lease ran out by its TTL")
	})
	t.Run("reuses a token", func(t *testing.T) {
		t.Parallel()
		svc, _ := localIssuer(t, 20*time.Millisecond)
		got := issuerStatuses(t, &forgetful{Local: svc}, issuerOptions(20*time.Millisecond))
		assert.Equal(t, Fail, got["successive-grants"].Result)
		assert.Contains(t, got["successive-grants"].Observed, "granted twice")
		assert.Equal(t, Fail, got["contended-grants"].Result)
	})
	t.Run("wraps at 2^32", func(t *testing.T) {
		t.Parallel()
		got := issuerStatuses(t, &wrap32{next: map[string]uint32{}}, issuerOptions(time.Hour))
		assert.Equal(t, Fail, got["token-boundaries"].Result)
		assert.Contains(t, got["token-boundaries"].Observed, "2^32: grant 2 carries token 0, below 4294967295")
		assert.Equal(t, Pass, got["successive-grants"].Result)
	})
}
