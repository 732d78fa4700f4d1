// Package zklease issues leases and fencing tokens from ZooKeeper with
// Curator's lock recipe (InterProcessMutex): a run's locks live under a
// root znode of its own, /fencecheck-<16 hex>; a grant creates an
// ephemeral sequential node <root>/<resource>/lock-NNNNNNNNNN (protected:
// its name starts with a GUID, so that a create whose answer was lost is
// found again), and the lowest sequence under the resource's lock parent
// holds the lock. The lease is the node's session: each grant opens a
// session of its own whose timeout is the run's lease TTL (the server
// rounds it into its minSessionTimeout..maxSessionTimeout), the node
// vanishes when that session expires, and a release deletes the node
// and closes the session.
//
// The token is the node's creation zxid (Czxid), not its sequence
// number. The zxid numbers every change of the whole ensemble: it only
// grows, across every parent and across a leader election (its epoch is
// its high 32 bits). The sequence number is a signed 32-bit counter kept
// in the lock parent (its cversion): it is local to that parent, starts
// again at 0 when the parent is deleted and created again (an operator's
// clean-up, a container node reaped when empty), and wraps to negative
// numbers past 2^31-1. A token taken from it goes back at either; see
// docs/leases.md and verify-issuer's sequence-after-parent-reset.
//
// What is not covered: the zxid is as durable as the server's data
// directory. A server restarted on it (forceSync=yes, the default) goes
// on above every zxid it acknowledged; a server that loses it starts
// again from zero, as does an ensemble rebuilt from scratch.
//
// Waiting differs from Curator's: Curator watches the node just below
// its own; here a grant that does not get the lowest sequence deletes
// its node at once (Curator's acquire with a zero wait) and the service
// tries again later (lease.Polled), which serializes a resource's grants
// within the run and would otherwise hold them for the watch.
package zklease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/lease"
)

// RootPrefix starts the path of every root znode an issuer creates.
const RootPrefix = "/fencecheck-"

// Tokens says what the tokens are, for lease.TokenSource.
const Tokens = "the creation zxid (Czxid) of the ephemeral sequential lock node (Curator's lock recipe), not its sequence number"

// mainTimeout is the session timeout asked for the store's own session,
// which holds no lease: a call it makes fails within two thirds of it
// when the server does not answer, inside lease.PollOptions' default
// call timeout.
const mainTimeout = 6 * time.Second

// Store is a run's locks under one root znode, on one ZooKeeper server
// or ensemble.
type Store struct {
	name    string
	servers []string
	root    string
	main    *session // reads, deletes and the clean-up

	mu     sync.Mutex
	leases map[string]*held // by resource: the latest grant's

	closing sync.WaitGroup // sessions closing in the background
}

// held is one grant: its node and the session that keeps it.
type held struct {
	token    uint64
	path     string
	sequence int32
	sess     *session
	ttl      time.Duration // the session timeout asked for
}

// Connect opens the store's session on servers (HOST:PORT each), named
// name in errors.
func Connect(ctx context.Context, name string, servers []string) (*Store, error) {
	s := &Store{name: name, servers: servers, root: RootPrefix + unique.Hex(8), leases: make(map[string]*held)}
	sess, err := openSession(ctx, servers, mainTimeout)
	if err != nil {
		return nil, s.wrap("connect", err)
	}
	s.main = sess
	return s, nil
}

// wrap names the issuer.
func (s *Store) wrap(what string, err error) error {
	return fmt.Errorf("zookeeper issuer %s: %s: %w", s.name, what, err)
}

// Root is the run's root znode.
func (s *Store) Root() string { return s.root }

// parent is the lock parent of resource.
func (s *Store) parent(resource string) string { return s.root + "/" + nodeName(resource) }

// ensure creates path and the root above it when they are missing.
func (s *Store) ensure(path string) error {
	for _, p := range []string{s.root, path} {
		if _, err := s.main.conn.Create(p, nil, 0, zk.WorldACL(zk.PermAll)); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	return nil
}

// Grant implements lease.Store with Curator's recipe: in a session of
// ttl of its own, create a protected ephemeral sequential node under the
// lock parent; it holds the lock when its sequence is the lowest there.
// When it is not, it is deleted with its session: the lease is current.
func (s *Store) Grant(ctx context.Context, resource string, _ int, ttl time.Duration) (uint64, bool, error) {
	parent := s.parent(resource)
	children, _, err := s.main.conn.Children(parent)
	switch {
	case errors.Is(err, zk.ErrNoNode):
		if err := s.ensure(parent); err != nil {
			return 0, false, unanswered(s.wrap("create the lock parent "+parent, err))
		}
	case err != nil:
		return 0, false, unanswered(s.wrap("list the lock parent "+parent, err))
	case lowest(children) != "":
		return 0, false, nil // a lease is current: no session spent on it
	}
	if err := s.forget(resource); err != nil {
		return 0, false, err
	}
	sess, err := openSession(ctx, s.servers, ttl)
	if err != nil {
		return 0, false, unanswered(s.wrap("open the lease's session", err))
	}
	h, ok, err := s.lock(sess, parent, ttl)
	if err != nil || !ok {
		sess.Close()
		return 0, false, err
	}
	s.mu.Lock()
	s.leases[resource] = h
	s.mu.Unlock()
	return h.token, true, nil
}

// lock creates sess's lock node under parent and reads whether it is the
// lowest, all in sess (which sees its own writes on any server).
func (s *Store) lock(sess *session, parent string, ttl time.Duration) (*held, bool, error) {
	path, err := sess.conn.CreateProtectedEphemeralSequential(parent+"/"+lockPrefix, nil, zk.WorldACL(zk.PermAll))
	if err != nil {
		return nil, false, unanswered(s.wrap("create the lock node", err))
	}
	_, stat, err := sess.conn.Exists(path)
	if err != nil {
		return nil, false, unanswered(s.wrap("read the lock node", err))
	}
	children, _, err := sess.conn.Children(parent)
	if err != nil {
		return nil, false, unanswered(s.wrap("list the lock parent", err))
	}
	name := path[strings.LastIndex(path, "/")+1:]
	if lowest(children) != name {
		return nil, false, nil
	}
	seq, _ := sequence(name)
	return &held{token: uint64(stat.Czxid), path: path, sequence: seq, sess: sess, ttl: ttl}, true, nil
}

// forget closes the session of resource's last grant once its node is
// gone from the server (read after a sync, not from the listing a
// lagging server may have given): a session that outlived its node (its
// client made a new one after the old expired) holds nothing. While the
// node is there, the lease is current and nothing is closed.
func (s *Store) forget(resource string) error {
	s.mu.Lock()
	h := s.leases[resource]
	s.mu.Unlock()
	if h == nil {
		return nil
	}
	if ok, err := s.present(h); err != nil || ok {
		return err
	}
	s.drop(resource, h)
	return nil
}

// drop forgets h, if it is still resource's latest grant, and closes its
// session in the background: its node is gone already, and a session
// whose connection was cut takes up to a second to close, which a grant
// need not wait for. Close waits for it.
func (s *Store) drop(resource string, h *held) {
	s.mu.Lock()
	if s.leases[resource] == h {
		delete(s.leases, resource)
	}
	s.mu.Unlock()
	s.closing.Go(h.sess.Close)
}

// current returns resource's grant while it carries token.
func (s *Store) current(resource string, token uint64) *held {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.leases[resource]; h != nil && h.token == token {
		return h
	}
	return nil
}

// present reports whether h's node is still on the server, as of a read
// that follows every write the server's leader had committed (a sync
// first: the store's session may be on a follower that lags).
func (s *Store) present(h *held) (bool, error) {
	if _, err := s.main.conn.Sync(h.path[:strings.LastIndex(h.path, "/")]); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return false, unanswered(s.wrap("sync", err))
	}
	ok, stat, err := s.main.conn.Exists(h.path)
	if err != nil {
		return false, unanswered(s.wrap("read the lock node", err))
	}
	return ok && uint64(stat.Czxid) == h.token, nil
}

// End implements lease.Store: delete the node, if it is still there,
// and close its session.
func (s *Store) End(_ context.Context, resource string, token uint64) (bool, error) {
	h := s.current(resource, token)
	if h == nil {
		return false, nil
	}
	err := s.main.conn.Delete(h.path, -1)
	if errors.Is(err, zk.ErrNoNode) {
		return false, nil
	}
	if err != nil {
		return false, unanswered(s.wrap("end the lease", err))
	}
	s.drop(resource, h)
	return true, nil
}

// Left implements lease.Store: while the node is there, its session is
// alive on the server, and lasts at least its timeout more (the session
// keeps itself alive until the lease ends or its holder is suspended).
func (s *Store) Left(_ context.Context, resource string, token uint64) (time.Duration, error) {
	h := s.current(resource, token)
	if h == nil {
		return 0, nil
	}
	ok, err := s.present(h)
	if err != nil || !ok {
		return 0, err
	}
	return h.sess.Timeout(h.ttl), nil
}

// Renew implements lease.Store: the session renews the lease as long as
// it is alive, so a renewal only checks that the node is still there.
func (s *Store) Renew(_ context.Context, resource string, token uint64, _ time.Duration) (bool, error) {
	h := s.current(resource, token)
	if h == nil {
		return false, nil
	}
	return s.present(h)
}

// Suspend stops the session of the lease on resource that carries token
// from answering the server, as a holder paused past its session timeout
// does: the server expires the session and deletes the node. It returns
// the session's timeout, 0 when the lease is not this store's latest.
func (s *Store) Suspend(resource string, token uint64) time.Duration {
	h := s.current(resource, token)
	if h == nil {
		return 0
	}
	h.sess.Cut()
	return h.sess.Timeout(h.ttl)
}

// Sequence returns the sequence number ZooKeeper gave the lock node of
// the grant of resource that carries token, while it is the latest.
func (s *Store) Sequence(resource string, token uint64) (int32, bool) {
	if h := s.current(resource, token); h != nil {
		return h.sequence, true
	}
	return 0, false
}

// RecreateParent deletes resource's lock parent and creates it again,
// as an operator who cleans up, or ZooKeeper reaping an empty container
// node, would: its sequence counter starts again. It fails while a lock
// node is under it.
func (s *Store) RecreateParent(_ context.Context, resource string) error {
	parent := s.parent(resource)
	if err := s.main.conn.Delete(parent, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return s.wrap("delete the lock parent "+parent, err)
	}
	if err := s.ensure(parent); err != nil {
		return s.wrap("create the lock parent "+parent, err)
	}
	return nil
}

// unanswered marks err as lease.ErrUnavailable when the server did not
// answer: no connection, a session lost, a timeout. An answer of the
// server's stays as it is.
func unanswered(err error) error {
	for _, e := range []error{zk.ErrConnectionClosed, zk.ErrNoServer, zk.ErrSessionExpired, zk.ErrSessionMoved, zk.ErrClosing, context.DeadlineExceeded, context.Canceled} {
		if errors.Is(err, e) {
			return lease.Unavailable(err)
		}
	}
	return err
}

// Close closes every lease's session, deletes the run's root and all
// under it, and closes the store's session. It touches nothing else on
// the server, which may be shared.
func (s *Store) Close() error {
	defer s.main.Close()
	s.mu.Lock()
	for _, h := range s.leases {
		s.closing.Go(h.sess.Close) // up to a second each when the server is gone
	}
	s.leases = map[string]*held{}
	s.mu.Unlock()
	s.closing.Wait()
	if err := s.removeTree(s.root); err != nil {
		return s.wrap(fmt.Sprintf("the root %s was left behind (remove it with: zkCli.sh deleteall %s); delete it", s.root, s.root), err)
	}
	return nil
}

// removeTree deletes path and everything under it.
func (s *Store) removeTree(path string) error {
	children, _, err := s.main.conn.Children(path)
	if errors.Is(err, zk.ErrNoNode) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, c := range children {
		if err := s.removeTree(path + "/" + c); err != nil {
			return err
		}
	}
	if err := s.main.conn.Delete(path, -1); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	return nil
}
