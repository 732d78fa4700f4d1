package verify

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/lease"
)

// jumpingLocal is the local service with a clock that jumps: a jump ends
// every lease it holds, as a jump past their TTL does on an issuer whose
// leases are timeouts; rewinds, the grant after the jump carries the
// token of the lease it ended again.
type jumpingLocal struct {
	*lease.Local
	rewinds bool

	mu   sync.Mutex
	held map[string]uint64 // resource: the token held there
}

func (j *jumpingLocal) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	l, err := j.Local.Acquire(ctx, resource, worker)
	j.mu.Lock()
	defer j.mu.Unlock()
	if old, ok := j.held[resource]; ok && j.rewinds && err == nil {
		l.Token = old
	}
	if err == nil {
		j.held[resource] = l.Token
	}
	return l, err
}

func (j *jumpingLocal) JumpClock(context.Context, time.Duration) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for r := range j.held {
		j.Local.Expire(r)
	}
	return nil
}

// TestClockJumpScenario: an issuer whose clock jumps ends the held lease
// and grants it again at once, two holders of one lease; the row passes
// when the new token is above the held one, and fails naming the token
// when the issuer grants the held token again.
func TestClockJumpScenario(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		rewinds bool
		result  Result
		says    string
	}{
		{"a higher token", false, Pass, "two holders of one lease"},
		{"the held token again", true, Fail, "granted twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			local, _ := localIssuer(t, time.Hour)
			svc := &jumpingLocal{Local: local, rewinds: tc.rewinds, held: map[string]uint64{}}
			row := clockJump.run(context.Background(), &issuerScript{svc: svc, o: issuerOptions(time.Hour), scenario: clockJump.name})
			t.Logf("%s: %s", row.Result, row.Observed)
			assert.Equal(t, tc.result, row.Result, row.Observed)
			assert.Contains(t, row.Observed, tc.says)
			assert.Contains(t, row.Expected, "the issuer's clock jumped 2h0m0s forward")
		})
	}
}
