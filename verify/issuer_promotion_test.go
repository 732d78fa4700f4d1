package verify

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/lease"
)

// promotable is an issuer with a replica it can fail over to, that never
// makes anyone wait: a counter per resource on the primary, copied to
// the replica at each grant unless the replica is held behind. A
// synchronous one acknowledges no grant while its replica is held (the
// grant waits until it is given up); an asynchronous one goes on, and
// the replica it promotes has the counters it had when it was held.
type promotable struct {
	sync, holds bool

	mu               sync.Mutex
	held, promoted   bool
	primary, replica map[string]uint64
}

func newPromotable(synchronous, holds bool) *promotable {
	return &promotable{sync: synchronous, holds: holds, primary: map[string]uint64{}, replica: map[string]uint64{}}
}

func (p *promotable) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	p.mu.Lock()
	if p.held && p.sync {
		p.mu.Unlock()
		<-ctx.Done()
		return lease.Lease{}, fmt.Errorf("acquire %s: %w", resource, ctx.Err())
	}
	defer p.mu.Unlock()
	p.primary[resource]++
	if !p.held {
		p.replica[resource] = p.primary[resource]
	}
	return lease.Lease{Resource: resource, Token: p.primary[resource], Worker: worker}, nil
}
func (*promotable) Release(lease.Lease)             {}
func (*promotable) Expire(string) bool              { return true }
func (*promotable) ExpireToken(string, uint64) bool { return true }

func (p *promotable) Failover(context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.promoted {
		return "", fmt.Errorf("promotable: promoted already")
	}
	p.promoted, p.held = true, false
	p.primary = maps.Clone(p.replica)
	return "primary killed, replica promoted", nil
}

// holding is a promotable that can hold its replica behind.
type holding struct{ *promotable }

func (h holding) HoldReplica(context.Context) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.held = true
	return "replica held", nil
}

var (
	_ lease.FailingOver   = (*promotable)(nil)
	_ lease.ReplicaHolder = holding{}
)

// TestIssuerPromotion: grant-after-promotion fails an issuer whose
// promoted replica had not received grants the primary acknowledged
// (asynchronous replication, the replica held behind), naming the token
// granted again; a synchronous one, which acknowledges nothing while its
// replica is held, passes and says the grant was not acknowledged; an
// issuer that cannot hold its replica is failed over as it streams; one
// without a replica is skipped.
func TestIssuerPromotion(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		svc  lease.Service
		want Result
		says string
	}{
		{"asynchronous, replica held", holding{newPromotable(false, true)}, Fail,
			"token 6 granted twice (grants 6 and 46): tokens 1 to 5, 6 to 45 while the replica was held, then 6 to 10 after the failover (primary killed, replica promoted)"},
		{"synchronous, replica held", holding{newPromotable(true, true)}, Pass,
			"tokens 1 to 5, none acknowledged while the replica was held, then grant 1 not within 1s (acquire verify-issuer-t-grant-after-promotion-1: context deadline exceeded), then 6 to 10 after the failover"},
		{"replica that cannot be held", newPromotable(false, false), Pass,
			"tokens 1 to 5, the issuer cannot hold its replica behind: failed over as it streams, then 6 to 10 after the failover"},
		{"no replica", newCrashable(1, false), Skip, "skipped: the issuer has no replica of its own to promote"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := issuerStatuses(t, tc.svc, issuerOptions(20*time.Millisecond))["grant-after-promotion"]
			assert.Equal(t, tc.want, got.Result, got.Observed)
			assert.Contains(t, got.Observed, tc.says)
		})
	}
}
