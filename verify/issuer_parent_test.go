package verify

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/lease"
)

// sequential is an issuer whose locks are sequential nodes under a
// parent per resource: the parent's counter numbers them and starts
// again when the parent is recreated. Its tokens are a counter of the
// whole issuer (a zxid), or, when bySequence, the parent's numbers.
type sequential struct {
	bySequence bool

	mu     sync.Mutex
	zxid   uint64
	parent map[string]int32
	seqs   map[uint64]int32
}

func (s *sequential) Acquire(_ context.Context, resource string, worker int) (lease.Lease, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zxid++
	seq := s.parent[resource]
	s.parent[resource]++
	token := s.zxid
	if s.bySequence {
		token = uint64(seq) + 1
	}
	s.seqs[token] = seq
	return lease.Lease{Resource: resource, Token: token, Worker: worker}, nil
}
func (s *sequential) Sequence(_ string, token uint64) (int32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq, ok := s.seqs[token]
	return seq, ok
}
func (s *sequential) RecreateParent(_ context.Context, resource string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zxid++
	delete(s.parent, resource)
	return nil
}
func (*sequential) Release(lease.Lease)             {}
func (*sequential) Expire(string) bool              { return true }
func (*sequential) ExpireToken(string, uint64) bool { return true }

// TestSequenceAfterParentReset: an issuer whose tokens are zxids passes
// and shows its sequence numbers starting again; one whose tokens are
// the sequence numbers fails, granting a token again.
func TestSequenceAfterParentReset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bySequence bool
		want       Result
		says       string
	}{
		{false, Pass, "sequence numbers 0, 1, 2, then 0, 1, 2 after the parent was recreated (started again"},
		{true, Fail, "token 1 granted twice"},
	} {
		svc := &sequential{bySequence: tc.bySequence, parent: map[string]int32{}, seqs: map[uint64]int32{}}
		got := issuerStatuses(t, svc, issuerOptions(time.Hour))["sequence-after-parent-reset"]
		assert.Equal(t, tc.want, got.Result, got.Observed)
		assert.Contains(t, got.Observed, tc.says)
	}
}
