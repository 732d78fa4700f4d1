package embedded

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/fencecheck/fencecheck/lease"
	etcdlease "github.com/fencecheck/fencecheck/lease/etcd"
)

// Issuer starts an embedded cluster in the run's directory when the run
// opens it, and stops it when the run closes the service.
type Issuer struct {
	Options Options
	_       struct{}
}

// NewIssuer returns an Issuer of a cluster started with opts.
func NewIssuer(opts Options) *Issuer { return &Issuer{Options: opts} }

// Name implements lease.Issuer.
func (i *Issuer) Name() string { return fmt.Sprintf("embedded etcd (%d members)", i.Options.Members) }

// HasServers reports whether the services Open returns have servers the
// issuer faults can crash and freeze: members in processes of their own
// (Options.Command).
func (i *Issuer) HasServers() bool { return i.Options.Command != nil }

// Open implements lease.Issuer: the cluster's data and logs go to the
// etcd folder of env.Dir; its data is deleted when the run closes the
// service, its logs stay.
func (i *Issuer) Open(ctx context.Context, env lease.Env) (lease.Service, error) {
	if env.Dir == "" {
		return nil, errors.New("embedded etcd: the run gave no directory for its data")
	}
	c, err := Start(ctx, filepath.Join(env.Dir, "etcd"), i.Options)
	if err != nil {
		return nil, err
	}
	svc, err := etcdlease.New(c.Endpoints).OpenService(ctx, env)
	if err != nil {
		c.Stop()
		return nil, errors.Join(err, c.RemoveData())
	}
	if i.HasServers() {
		return &serversService{service: service{Service: svc, cluster: c}}, nil
	}
	return &service{Service: svc, cluster: c}, nil
}

// service is the etcd lease service of a cluster it stops at Close. It
// starts a resource's tokens above a prior one as the etcd service does
// (the run looks for StartAbove).
type service struct {
	*etcdlease.Service
	cluster *Cluster
}

// Close closes the service, then stops the cluster and deletes its data.
// It reports a member that exited on its own during the run.
func (s *service) Close() error {
	err := s.Service.Close()
	s.cluster.Stop()
	return errors.Join(err, s.cluster.Err(), s.cluster.RemoveData())
}

// serversService is the service of a cluster whose members run in
// processes: the issuer faults find its servers (lease.Servers)
// and crash, restart, freeze and thaw them.
type serversService struct {
	service
	snapMu sync.Mutex
	snapAt int64 // the last snapshot's revision
}

// Servers names the members as events name them: "etcd member m1".
func (s *serversService) Servers() []string {
	names := s.cluster.Members()
	for i, n := range names {
		names[i] = "etcd member " + n
	}
	return names
}

func (s *serversService) Leader(ctx context.Context) int         { return s.cluster.Leader(ctx) }
func (s *serversService) Kill(i int) error                       { return s.cluster.Kill(i) }
func (s *serversService) Start(ctx context.Context, i int) error { return s.cluster.Start(ctx, i) }
func (s *serversService) Freeze(i int) error                     { return s.cluster.Freeze(i) }
func (s *serversService) Thaw(i int) error                       { return s.cluster.Thaw(i) }

// Snapshot implements lease.Restorer: the cluster's revision at the
// snapshot, above which every later grant's token is.
func (s *serversService) Snapshot(ctx context.Context) (uint64, error) {
	rev, err := s.cluster.Snapshot(ctx)
	if err != nil {
		return 0, err
	}
	s.snapMu.Lock()
	s.snapAt = rev
	s.snapMu.Unlock()
	return uint64(rev), nil
}

// Restore implements lease.Restorer with Cluster.Restore. With bump, the
// revision is moved past the one read just before the members stop, by
// RestoreMargin more, and marked compacted; without, it goes back to the
// snapshot's. The service's lock waits then end and are tried again
// (Restored).
func (s *serversService) Restore(ctx context.Context, bump bool) (string, error) {
	s.snapMu.Lock()
	at := s.snapAt
	s.snapMu.Unlock()
	latest, err := s.cluster.Revision(ctx)
	if err != nil {
		return "", err
	}
	var by uint64
	if bump {
		by = uint64(max(latest-at, 0)) + RestoreMargin
	}
	if err := s.cluster.Restore(ctx, by); err != nil {
		return "", err
	}
	s.Restored()
	now, err := s.cluster.Revision(ctx)
	if err != nil {
		return "", err
	}
	if !bump {
		return fmt.Sprintf("etcd cluster restored from its snapshot at revision %d without --bump-revision: its revision went back from %d to %d", at, latest, now), nil
	}
	return fmt.Sprintf("etcd cluster restored from its snapshot at revision %d with --bump-revision %d and --mark-compacted: its revision went from %d to %d", at, by, latest, now), nil
}

// The capabilities the harness and verify look for.
var (
	_ lease.Floored      = (*service)(nil)
	_ lease.Servers      = (*serversService)(nil)
	_ lease.Restorer     = (*serversService)(nil)
	_ lease.ServerIssuer = (*Issuer)(nil)
)

// TokenSource implements lease.TokenSource: the tokens of etcd.
func (i *Issuer) TokenSource() string { return etcdlease.Tokens() }
