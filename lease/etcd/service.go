package etcdlease

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
)

// rpcTimeout bounds the calls that end a lease (unlock, revoke) and the
// clean-up at Close: a slow cluster must not hold a worker forever.
const rpcTimeout = 5 * time.Second

// Service is a lease.Service on etcd; see the package comment.
type Service struct {
	cli         *clientv3.Client
	closeClient bool
	env         lease.Env
	prefix      string
	ttl         int64 // requested, whole seconds

	mu   sync.Mutex
	held map[string]*holding // resource → its current holder
	wg   sync.WaitGroup      // the keepalive watchers and expiry watches
	// closing ends with the run's life or at Close: the watches that
	// wait for a suspended lease's expiry stop then.
	closing    context.Context
	endWatches context.CancelFunc
	// waits ends the lock waits in progress (Restored); a new one
	// replaces it.
	waits    context.Context
	endWaits context.CancelFunc
}

// holding is one grant: the etcd lease behind it, its lock, and whether
// it ended (released, revoked or run out), after which nothing more is
// recorded for it.
type holding struct {
	lease lease.Lease
	sess  *concurrency.Session
	lock  *concurrency.Mutex
	stop  context.CancelFunc // the watcher's keepalive
	ttl   int64              // granted, whole seconds
	ended bool
	// ending: a release or revoke is on its way to the cluster; its event
	// is recorded once the cluster answered (see end).
	ending bool
	// suspended: its keepalive was stopped on purpose (Suspend), so the
	// keepalive's end is no expiry; the lock key's deletion will be.
	suspended bool
}

// over reports whether h's lease has ended or is being ended: nothing
// but that end is recorded for it any more.
func (h *holding) over() bool { return h.ended || h.ending }

func newService(cli *clientv3.Client, env lease.Env, prefix string) *Service {
	closing, endWatches := context.WithCancel(env.Life)
	waits, endWaits := context.WithCancel(context.Background())
	return &Service{cli: cli, env: env, prefix: prefix, ttl: ttlSeconds(env.TTL), held: make(map[string]*holding),
		closing: closing, endWatches: endWatches, waits: waits, endWaits: endWaits}
}

// lockPrefix is the mutex prefix of resource. The name is escaped so that
// one resource's prefix is never a prefix of another's ("a" and "a/b").
func (s *Service) lockPrefix(resource string) string {
	return s.prefix + "lock/" + url.PathEscape(resource) + "/"
}

// acquire makes one attempt at Acquire: it grants an etcd lease, waits
// for the resource's lock under it, and takes the lock key's create
// revision as the token. The calls that need the cluster to answer at
// once are bounded by rpcTimeout; the wait for the lock is not.
func (s *Service) acquire(ctx context.Context, resource string, worker int) (lease.Lease, error) {
	gctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	grant, err := s.cli.Grant(gctx, s.ttl)
	cancel()
	if err != nil {
		return lease.Lease{}, fmt.Errorf("acquire lease on %s: grant an etcd lease: %w", resource, err)
	}
	sess, err := concurrency.NewSession(s.cli, concurrency.WithLease(grant.ID), concurrency.WithContext(s.env.Life))
	if err != nil {
		_ = s.revoke(grant.ID)
		return lease.Lease{}, fmt.Errorf("acquire lease on %s: etcd session: %w", resource, err)
	}
	lock := concurrency.NewMutex(sess, s.lockPrefix(resource))
	lctx, endWait := s.lockWait(ctx)
	token, err := s.lock(lctx, lock)
	endWait()
	if err != nil {
		_ = sess.Close()
		return lease.Lease{}, fmt.Errorf("acquire lease on %s: %w", resource, err)
	}
	kaCtx, stop := context.WithCancel(s.env.Life)
	ka, err := s.cli.KeepAlive(kaCtx, grant.ID)
	if err != nil {
		stop()
		_ = sess.Close()
		return lease.Lease{}, fmt.Errorf("acquire lease on %s: etcd keepalive: %w", resource, err)
	}
	h := &holding{lease: lease.Lease{Resource: resource, Token: token, Worker: worker}, sess: sess, lock: lock, stop: stop, ttl: grant.TTL}
	s.mu.Lock()
	if prev := s.held[resource]; prev != nil && !prev.over() {
		// The lock passed on, so the previous holder's etcd lease ended
		// on the cluster before its client noticed: say so first.
		s.endLocked(prev, histories.FExpire, "its etcd lease ran out (the lock passed to the next waiter)")
	}
	s.held[resource] = h
	s.recordLocked(histories.FAcquire, h.lease, fmt.Sprintf("worker %d receives token %d (the etcd lock key's revision; etcd lease %x, TTL %d s)",
		worker, token, grant.ID, grant.TTL))
	s.mu.Unlock()
	s.wg.Add(1)
	go s.watch(h, ka)
	return h.lease, nil
}

// lock waits for lock and returns its key's create revision.
func (s *Service) lock(ctx context.Context, lock *concurrency.Mutex) (uint64, error) {
	if err := lock.Lock(ctx); err != nil {
		return 0, fmt.Errorf("etcd lock: %w", err)
	}
	gctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	got, err := s.cli.Get(gctx, lock.Key())
	if err != nil {
		return 0, fmt.Errorf("read the etcd lock key: %w", err)
	}
	if len(got.Kvs) == 0 {
		return 0, errors.New("etcd lock key vanished: the etcd lease ran out while waiting")
	}
	return uint64(got.Kvs[0].CreateRevision), nil
}

// watch records h's renewals, one per keepalive response (the client
// sends one every TTL/3), and its expiry when the keepalive ends.
func (s *Service) watch(h *holding, ka <-chan *clientv3.LeaseKeepAliveResponse) {
	defer s.wg.Done()
	for resp := range ka {
		s.mu.Lock()
		if !h.over() && !h.suspended && s.env.Life.Err() == nil {
			s.recordLocked(histories.FRenew, h.lease, fmt.Sprintf("worker %d's etcd lease %x renewed for %d s", h.lease.Worker, resp.ID, resp.TTL))
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	lapsed := !h.over() && !h.suspended && s.env.Life.Err() == nil
	s.mu.Unlock()
	if lapsed {
		// The client gave up on the lease, which the cluster may still
		// hold (a new leader extends every lease): its end is recorded
		// once the cluster deletes the lock key, never before.
		s.awaitExpiry(h, "its etcd lease ran out on the cluster after its keepalive ended: etcd deleted the lock key")
	}
}

// Release implements lease.Service: it deletes the lock key and revokes
// the etcd lease, if the lease is still current.
func (s *Service) Release(l lease.Lease) {
	s.end(l.Resource, func(h *holding) bool { return h.lease.Token == l.Token }, histories.FRelease,
		fmt.Sprintf("releases token %d", l.Token), func(h *holding) error {
			ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
			defer cancel()
			_ = h.lock.Unlock(ctx) // the revoke deletes the key anyway
			return s.revoke(h.sess.Lease())
		})
}

// Expire implements lease.Service: etcd TTLs are whole seconds, so ending
// a lease early means revoking it.
func (s *Service) Expire(resource string) bool {
	return s.revokeHolder(resource, func(*holding) bool { return true }, "expired early by the nemesis")
}

// ExpireToken implements lease.Service.
func (s *Service) ExpireToken(resource string, token uint64) bool {
	return s.revokeHolder(resource, func(h *holding) bool { return h.lease.Token == token },
		"it outlived a pause or a delayed write (the nemesis)")
}

func (s *Service) revokeHolder(resource string, match func(*holding) bool, why string) bool {
	return s.end(resource, match, histories.FRevoke, "its etcd lease is revoked: "+why, func(h *holding) error {
		return s.revoke(h.sess.Lease())
	})
}

// end ends the current holder of resource, if match accepts it, by call
// (a revoke), and records f once the cluster answered: the event's time is
// then at or after the end on the cluster, which is what --require
// exclusive relies on (a write sent after it was sent without a lease).
// Meanwhile the next holder may be granted the lock and recorded first:
// the history then shows the revoke as late as the run learned of it.
// When the call fails the lease was not ended on the cluster; with its
// keepalives stopped (the watcher's and the session's) it runs out by
// its TTL, which is recorded when etcd deletes the lock key.
func (s *Service) end(resource string, match func(*holding) bool, f, what string, call func(*holding) error) bool {
	s.mu.Lock()
	h := s.held[resource]
	if h == nil || h.over() || !match(h) {
		s.mu.Unlock()
		return false
	}
	h.ending = true
	h.stop()
	s.mu.Unlock()
	// The session's own keepalive stops too, before the call: it stops by
	// itself only once the cluster answers that the lease is gone, and a
	// restore from an older snapshot in between brings the lease back, to
	// be renewed, with its lock key, for the rest of the run.
	h.sess.Orphan()
	if err := call(h); err != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.awaitExpiry(h, fmt.Sprintf("the call to end it failed (%v); its etcd lease ran out on the cluster: etcd deleted the lock key", err))
		}()
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !h.ended && s.env.Life.Err() == nil {
		s.endLocked(h, f, what)
	}
	h.ended = true
	return true
}

func (s *Service) endLocked(h *holding, f, what string) {
	h.ended = true
	h.stop()
	verb := "loses token"
	if f == histories.FRelease {
		verb = "gives back token"
	}
	s.recordLocked(f, h.lease, fmt.Sprintf("worker %d %s %d: %s", h.lease.Worker, verb, h.lease.Token, what))
}

func (s *Service) recordLocked(f string, l lease.Lease, detail string) {
	lease.Record(s.env.Recorder, f, l, detail)
}

// revoke revokes the etcd lease id; a lease not revoked runs out by its
// TTL.
func (s *Service) revoke(id clientv3.LeaseID) error {
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	_, err := s.cli.Revoke(ctx, id)
	return err
}

// Close implements io.Closer: it ends every holder's keepalive, deletes
// the run's keys (revoking their leases) and closes the client it opened.
func (s *Service) Close() error {
	s.mu.Lock()
	for _, h := range s.held {
		h.ended = true
		h.stop()
		_ = h.sess.Close()
	}
	s.mu.Unlock()
	s.endWatches()
	s.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	_, err := s.cli.Delete(ctx, s.prefix, clientv3.WithPrefix())
	if err != nil {
		err = fmt.Errorf("delete the run's etcd keys under %s: %w", s.prefix, err)
	}
	if s.closeClient {
		return errors.Join(err, s.cli.Close())
	}
	return err
}

// The capabilities the harness and verify look for.
var (
	_ lease.Floored   = (*Service)(nil)
	_ lease.Suspender = (*Service)(nil)
)
