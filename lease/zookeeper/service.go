package zklease

import (
	"context"
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/lease/private"
)

// Issuer is the issuer of the locks on a ZooKeeper server or ensemble
// the user runs (the spec zookeeper://HOST:PORT,…). It connects in Open.
type Issuer struct {
	// Spec names the servers, printed as the issuer's name.
	Spec    string
	Servers []string
	Poll    lease.PollOptions
	_       struct{}
}

// NewIssuer returns the issuer of the servers spec names.
func NewIssuer(spec string, servers []string, poll lease.PollOptions) *Issuer {
	return &Issuer{Spec: spec, Servers: servers, Poll: poll}
}

// Name implements lease.Issuer.
func (i *Issuer) Name() string { return i.Spec }

// TokenSource implements lease.TokenSource.
func (i *Issuer) TokenSource() string { return Tokens }

// Open implements lease.Issuer.
func (i *Issuer) Open(ctx context.Context, env lease.Env) (lease.Service, error) {
	st, err := Connect(ctx, i.Spec, i.Servers)
	if err != nil {
		return nil, err
	}
	return &Service{Polled: lease.NewPolled(env, st, i.Poll), st: st}, nil
}

// Service is the lease service of a ZooKeeper issuer: a lease.Polled
// on its Store, whose suspended leases end by their session's expiry.
type Service struct {
	*lease.Polled
	st *Store
}

// Suspend implements lease.Suspender: the lease's session stops
// answering the server, which expires it after its timeout and deletes
// the lock node; the service records the end once it reads the node
// gone.
func (s *Service) Suspend(resource string, token uint64, ended func()) (time.Duration, bool) {
	return suspend(s.Polled, s.st, resource, token, ended)
}

// Sequence and RecreateParent let verify-issuer show the sequence
// number restart that the zxid tokens are not taken from (Store).
func (s *Service) Sequence(resource string, token uint64) (int32, bool) {
	return s.st.Sequence(resource, token)
}
func (s *Service) RecreateParent(ctx context.Context, resource string) error {
	return s.st.RecreateParent(ctx, resource)
}

// PrivateService is the lease service of a private ZooKeeper server:
// its Service, with the server the issuer faults crash and freeze.
type PrivateService struct {
	*private.Service
	st *Store
}

// Suspend implements lease.Suspender, as Service.Suspend.
func (s *PrivateService) Suspend(resource string, token uint64, ended func()) (time.Duration, bool) {
	return suspend(s.Service.Polled, s.st, resource, token, ended)
}

// Sequence and RecreateParent: see Service.
func (s *PrivateService) Sequence(resource string, token uint64) (int32, bool) {
	return s.st.Sequence(resource, token)
}
func (s *PrivateService) RecreateParent(ctx context.Context, resource string) error {
	return s.st.RecreateParent(ctx, resource)
}

// suspend stops the lease's session once polled waits for the lease's
// end. The server expires the session within its timeout (and a tick)
// after it last heard from it, and polled reads the node gone at its
// next check, up to a timeout later: polled's own bound, for a lease
// that runs out by its TTL, is not enough when the server rounded the
// timeout up.
func suspend(polled *lease.Polled, st *Store, resource string, token uint64, ended func()) (time.Duration, bool) {
	within, ok := polled.Suspend(resource, token, ended)
	if !ok {
		return 0, false
	}
	return within + 3*st.Suspend(resource, token), true
}

// The capabilities the harness and verify look for.
var (
	_ lease.Suspender = (*Service)(nil)
	_ lease.Suspender = (*PrivateService)(nil)
	_ lease.Servers   = (*PrivateService)(nil)
)
