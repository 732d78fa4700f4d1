package embedded

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

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
		return &serversService{service{Service: svc, cluster: c}}, nil
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
type serversService struct{ service }

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

// The capabilities the harness and verify look for.
var (
	_ lease.Floored      = (*service)(nil)
	_ lease.Servers      = (*serversService)(nil)
	_ lease.ServerIssuer = (*Issuer)(nil)
)
