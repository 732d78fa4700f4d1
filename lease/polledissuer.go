package lease

import (
	"context"

	"github.com/fencecheck/fencecheck/internal/redact"
)

// PolledIssuer is the Issuer of every real issuer reached through a Store
// (Redis, PostgreSQL): it connects in Open, so that a spec is checked and
// printed before any server is reached, and serves the run with a Polled
// service on the store it connected.
type PolledIssuer struct {
	Spec string
	Opts PollOptions
	// Connect reaches the issuer spec names and makes the run's store
	// there. Its errors must carry no password.
	Connect func(ctx context.Context, spec string) (Store, error)
}

// Name implements Issuer: the spec without its password.
func (i *PolledIssuer) Name() string { return redact.Spec(i.Spec) }

// Open implements Issuer.
func (i *PolledIssuer) Open(ctx context.Context, env Env) (Service, error) {
	st, err := i.Connect(ctx, i.Spec)
	if err != nil {
		return nil, err
	}
	return NewPolled(env, st, i.Opts), nil
}
