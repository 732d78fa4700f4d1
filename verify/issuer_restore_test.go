package verify

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/lease"
)

// restorable is one counter for every resource, as etcd's revision is,
// that can be snapshotted and restored: without a bump the counter goes
// back to the snapshot's, with one it moves past every token granted.
type restorable struct {
	mu         sync.Mutex
	next, snap uint64
}

func (r *restorable) Acquire(_ context.Context, resource string, worker int) (lease.Lease, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	return lease.Lease{Resource: resource, Token: r.next, Worker: worker}, nil
}
func (*restorable) Release(lease.Lease)             {}
func (*restorable) Expire(string) bool              { return true }
func (*restorable) ExpireToken(string, uint64) bool { return true }

func (r *restorable) Snapshot(context.Context) (uint64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.snap = r.next
	return r.snap, nil
}

func (r *restorable) Restore(_ context.Context, bump bool) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	latest := r.next
	r.next = r.snap
	if bump {
		r.next += latest
	}
	return fmt.Sprintf("counter from %d to %d", latest, r.next), nil
}

var _ lease.Restorer = (*restorable)(nil)

// TestIssuerRestoreScenarios: restored without a bump, an issuer grants
// its tokens again, which the row reports as information naming the
// setting that prevents it; restored with a bump it passes; an issuer
// fencecheck cannot restore is not applicable, saying why.
func TestIssuerRestoreScenarios(t *testing.T) {
	t.Parallel()
	got := issuerStatuses(t, &restorable{}, issuerOptions(time.Hour))
	plain, bumped := got["grant-after-restore"], got["grant-after-restore-bumped"]
	assert.Equal(t, Info, plain.Result, plain.Observed)
	assert.Equal(t, "token 110 granted twice (grants 6 and 11): tokens 105 to 109, a snapshot at 109, 110 to 114, "+
		"then 110 to 114 after a restore without a bump, as etcd documents; --bump-revision with --mark-compacted prevents it",
		plain.Observed)
	assert.Equal(t, Pass, bumped.Result, bumped.Observed)
	assert.Equal(t, "tokens 115 to 119, a snapshot at 119, tokens 120 to 124, then 244 to 248 after the restore (counter from 124 to 243)", bumped.Observed)

	svc, _ := localIssuer(t, 20*time.Millisecond)
	local := issuerStatuses(t, svc, issuerOptions(20*time.Millisecond))
	for _, name := range []string{"grant-after-restore", "grant-after-restore-bumped"} {
		assert.Equal(t, Skip, local[name].Result)
		assert.Contains(t, local[name].Observed, "skipped: fencecheck cannot restore this issuer from a snapshot")
	}
}
