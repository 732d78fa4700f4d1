package etcdlease

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/lease"
)

// The backoff between attempts at a grant, and how long Acquire keeps
// trying while every attempt fails.
const (
	retryMin = 10 * time.Millisecond
	retryMax = 500 * time.Millisecond
	// retryFor bounds a run of failed attempts: a cluster that grants
	// nothing for this long has lost its quorum for good, and the worker
	// gives up (a leader election takes about a second).
	retryFor = time.Minute
)

// Acquire implements lease.Service: it grants an etcd lease, waits for the
// resource's lock under it, and takes the lock key's create revision as
// the token. An attempt that fails on the way (the member it asked was
// killed, the cluster is electing a leader, a call timed out) is made
// again, after a backoff, as a client of a failing-over cluster would: a
// worker that gave up at the first error would leave the run with fewer
// and fewer workers exactly when the issuer is tested. A failed attempt
// leaves nothing held: its etcd lease is revoked, or runs out by its TTL,
// taking its lock key with it. Only ctx ending, or failures for retryFor
// in a row, end Acquire without a lease.
func (s *Service) Acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	rt := s.env.Runtime
	wait, failing := retryMin, int64(-1) // since when every attempt failed
	for {
		l, err := s.acquire(ctx, resource, worker)
		if failing < 0 {
			failing = rt.Now()
		}
		switch {
		case err == nil:
			return l, nil
		case ctx.Err() != nil || s.env.Life.Err() != nil:
			return lease.Lease{}, err
		case time.Duration(rt.Now()-failing) > retryFor:
			return lease.Lease{}, fmt.Errorf("%w (every attempt failed for %v)", err, retryFor)
		}
		if serr := rt.Sleep(ctx, wait); serr != nil {
			return lease.Lease{}, fmt.Errorf("acquire lease on %s: %w (after %w)", resource, serr, err)
		}
		wait = min(2*wait, retryMax)
	}
}
