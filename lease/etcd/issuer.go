// Package etcdlease issues leases from etcd: each grant is an etcd lease
// (a concurrency.Session) holding a concurrency.Mutex on a key per
// resource, and the fencing token is the revision at which the holder's
// lock key was created (its CreateRevision).
//
// Why the revision and not the lease ID: etcd documents the lock key's
// revision as the fencing token. Revisions are global to the cluster and
// only grow, and the mutex hands the lock to the waiter whose key has the
// lowest create revision, so successive holders of one resource carry
// strictly increasing tokens. Lease IDs embed the member that granted
// them and are not ordered across members.
//
// etcd lease TTLs are whole seconds, and a server raises a TTL below its
// minimum (1.5 × the election timeout, rounded up: 2 s with the default
// 1 s election timeout) to that minimum. The requested TTL is rounded up
// to whole seconds, and the TTL the server granted is written in each
// grant event. The nemesis's early expiry therefore revokes the holder's
// etcd lease (a revoke event) rather than shortening it.
//
// The keepalive runs in the etcd client's goroutines, beside the worker.
// A worker the nemesis pauses stops it (Suspend), and its lease runs out
// on the cluster by its TTL, recorded when etcd deletes the lock key; a
// lease the nemesis ends early otherwise is revoked.
package etcdlease

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/lease"
)

// Issuer opens a lease service on an etcd cluster the caller runs.
type Issuer struct {
	// Endpoints are the cluster's client URLs (host:port or http://host:port).
	Endpoints []string
	// DialTimeout bounds connecting to the cluster when the run opens.
	DialTimeout time.Duration
	_           struct{}
}

// New returns an Issuer for the cluster at endpoints.
func New(endpoints []string) *Issuer {
	return &Issuer{Endpoints: endpoints, DialTimeout: 5 * time.Second}
}

// Name implements lease.Issuer.
func (i *Issuer) Name() string { return fmt.Sprintf("etcd (%d endpoints)", len(i.Endpoints)) }

// Open implements lease.Issuer with OpenService.
func (i *Issuer) Open(ctx context.Context, env lease.Env) (lease.Service, error) {
	return i.OpenService(ctx, env)
}

// OpenService connects to the cluster and checks that it answers. The
// service's keys live under a prefix unique to the run, and its Close
// deletes them.
func (i *Issuer) OpenService(ctx context.Context, env lease.Env) (*Service, error) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: i.Endpoints, DialTimeout: i.DialTimeout, Logger: zap.NewNop()})
	if err != nil {
		return nil, fmt.Errorf("connect to etcd %v: %w", i.Endpoints, err)
	}
	svc, err := open(ctx, cli, env)
	if err != nil {
		_ = cli.Close()
		return nil, err
	}
	svc.closeClient = true
	return svc, nil
}

// open returns a service on cli once the cluster answered a read.
func open(ctx context.Context, cli *clientv3.Client, env lease.Env) (*Service, error) {
	prefix := "/fencecheck/" + unique.Hex(8) + "/" // runs sharing a cluster never contend for each other's locks
	probe, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := cli.Get(probe, prefix); err != nil {
		return nil, fmt.Errorf("etcd does not answer: %w", err)
	}
	return newService(cli, env, prefix), nil
}

// ttlSeconds rounds ttl up to whole seconds, at least one.
func ttlSeconds(ttl time.Duration) int64 {
	return max(1, int64((ttl+time.Second-1)/time.Second))
}

// TokenSource implements lease.TokenSource.
func (i *Issuer) TokenSource() string { return Tokens() }

// Tokens says what an etcd issuer's tokens are.
func Tokens() string {
	return "the revision at which the lease's lock key was created (its create revision): the cluster's own counter, which every write raises"
}
