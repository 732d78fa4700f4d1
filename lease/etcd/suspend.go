package etcdlease

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencecheck/fencecheck/histories"
)

// Suspend stops renewing the etcd lease of the holder of resource that
// carries token, as the keepalive of a process that pauses stops with
// it, so that the lease runs out on the cluster by its TTL; it calls
// ended once that is recorded. The cluster says when: it deletes the
// holder's lock key with the lease, and a watch on the key sees the
// deletion, which is recorded as the expiry then (unless something ended
// the lease first: the next holder's grant, a revoke). ended is called
// however the lease ended, and when the run ends. within is how long the
// cluster may take: the remaining TTL (at most the whole TTL) plus the
// leader's check for expired leases, and after a leader change the TTL
// again (a new leader extends every lease), bounded here by three TTLs
// and a request timeout. ok is false when the lease is no longer current
// or already suspended.
func (s *Service) Suspend(resource string, token uint64, ended func()) (within time.Duration, ok bool) {
	s.mu.Lock()
	h := s.held[resource]
	if h == nil || h.over() || h.suspended || h.lease.Token != token {
		s.mu.Unlock()
		return 0, false
	}
	h.suspended = true
	s.mu.Unlock()
	h.sess.Orphan() // the session's keepalive, without revoking
	h.stop()        // the watcher's
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer ended()
		s.awaitExpiry(h, fmt.Sprintf("its etcd lease ran out on the cluster (TTL %d s) while the worker was paused and its keepalive stopped: etcd deleted the lock key", h.ttl))
	}()
	return 3*time.Duration(h.ttl)*time.Second + rpcTimeout, true
}

// awaitExpiry watches h's lock key until the cluster deletes it, and
// records the expiry then; it returns early when the run ends or the
// service closes. A watch
// that ends without the deletion (the revision it started from was
// compacted away) is replaced by one from the key's current state.
func (s *Service) awaitExpiry(h *holding, why string) {
	ctx := s.closing
	key, rev := h.lock.Key(), int64(h.lease.Token)
	for ctx.Err() == nil {
		for resp := range s.cli.Watch(ctx, key, clientv3.WithRev(rev), clientv3.WithFilterPut()) {
			for _, ev := range resp.Events {
				if ev.Type == clientv3.EventTypeDelete {
					s.expired(h, why)
					return
				}
			}
		}
		gctx, cancel := context.WithTimeout(ctx, rpcTimeout)
		got, err := s.cli.Get(gctx, key)
		cancel()
		switch {
		case err != nil:
			if s.env.Runtime.Sleep(ctx, retryMax) != nil {
				return
			}
		case len(got.Kvs) == 0:
			s.expired(h, why)
			return
		default:
			rev = got.Header.Revision + 1
		}
	}
}

// expired records that h's lease ran out on the cluster, for why, unless
// its end was recorded already.
func (s *Service) expired(h *holding, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !h.ended && s.env.Life.Err() == nil {
		s.endLocked(h, histories.FExpire, why)
	}
	h.ended = true
}
