package etcdlease

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// Renew implements lease.Renewer: one keepalive (KeepAliveOnce) of the
// holder's etcd lease, sent by the worker itself and recorded as a renew
// event, beside the client's own keepalive (see the package comment). A
// lease etcd no longer has, or that this service saw end, is
// lease.ErrNotHeld.
func (s *Service) Renew(ctx context.Context, l lease.Lease) error {
	h := s.current(l)
	if h == nil {
		return fmt.Errorf("renew the lease on %s with token %d: %w", l.Resource, l.Token, lease.ErrNotHeld)
	}
	resp, err := s.cli.KeepAliveOnce(ctx, h.sess.Lease())
	switch {
	case errors.Is(err, rpctypes.ErrLeaseNotFound):
		return fmt.Errorf("renew the lease on %s with token %d: etcd lease %x: %w", l.Resource, l.Token, h.sess.Lease(), lease.ErrNotHeld)
	case err != nil:
		return fmt.Errorf("renew the lease on %s with token %d: %w", l.Resource, l.Token, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !h.over() && s.env.Life.Err() == nil {
		s.recordLocked(histories.FRenew, h.lease, fmt.Sprintf("worker %d renews its etcd lease %x for %d s", l.Worker, resp.ID, resp.TTL))
	}
	return nil
}

// Held implements lease.HolderChecker: the lease is held while the
// holder's lock key is still in the cluster with the revision that is its
// token (a revoked or expired etcd lease deletes it).
func (s *Service) Held(ctx context.Context, l lease.Lease) (bool, error) {
	h := s.current(l)
	if h == nil {
		return false, nil
	}
	got, err := s.cli.Get(ctx, h.lock.Key())
	if err != nil {
		return false, fmt.Errorf("ask whether the lease on %s with token %d is held: %w", l.Resource, l.Token, err)
	}
	return len(got.Kvs) == 1 && uint64(got.Kvs[0].CreateRevision) == l.Token, nil
}

// current returns the holding of l if it is the resource's current one
// and has not ended, as far as this service knows.
func (s *Service) current(l lease.Lease) *holding {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held[l.Resource]
	if h == nil || h.over() || h.lease.Token != l.Token {
		return nil
	}
	return h
}
