package lease

import (
	"context"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/sched"
)

// Env is what a lease service takes from the run that uses it.
type Env struct {
	// Life is the run's life: background work (keepalives, watches,
	// expiry timers) stops when it ends.
	Life context.Context
	// Runtime is the run's clock. A real issuer runs on real time only.
	Runtime sched.Runtime
	// Recorder takes the service's grants, renewals, expiries, releases
	// and revocations as lease events (see Record).
	Recorder *histories.Recorder
	// TTL is how long a lease lasts when its holder does not renew it.
	// An issuer whose TTLs are coarser (etcd's are whole seconds) rounds
	// it up and says so in its grant events.
	TTL time.Duration
	// Dir is the run's directory, where an issuer that fencecheck starts
	// itself (an embedded etcd cluster) keeps its data and logs.
	Dir string
	// ClockJumps asks an issuer that can (ClockIssuer) to start its
	// servers with a clock that can jump (ClockJumper): the run jumps
	// it. Others ignore it.
	ClockJumps bool
	_          struct{} // keyed fields only: the struct may grow
}

// Issuer opens the lease service of one run: a real token issuer (etcd,
// Redis, a database sequence) that needs the run's recorder and life,
// which exist only once the run has started. The service it returns may
// also be an io.Closer, closed when the run ends.
type Issuer interface {
	Open(ctx context.Context, env Env) (Service, error)
	// Name says which issuer this is, safe to print (no secrets).
	Name() string
}

// Record writes one lease event: f is histories.FAcquire, FRenew,
// FExpire, FRelease or FRevoke. Every service records through it, so
// that reports and checkers read all issuers alike.
func Record(rec *histories.Recorder, f string, l Lease, detail string) {
	rec.Record(&histories.Event{Process: -1, Actor: histories.ActorLease, F: f, Resource: l.Resource,
		Token: l.Token, HasToken: true, Holder: l.Worker, HasHolder: true, Detail: detail})
}

// TokenSource is an Issuer that says what its tokens are, for a person
// deciding whether to adopt it: "the revision at which the lock key was
// created". An audit names it beside the issuer (audit's first step);
// an issuer without it is described by its name alone.
type TokenSource interface {
	Issuer
	TokenSource() string
}

// TokenSource implements TokenSource: a Polled issuer's tokens are its
// store's, named by the spec's scheme.
func (i *PolledIssuer) TokenSource() string {
	switch scheme, _, _ := strings.Cut(i.Spec, "://"); scheme {
	case "redis", "rediss":
		return redisTokens
	case "postgres", "postgresql":
		return postgresTokens
	}
	return "what its store's grant returns"
}

// What the tokens of the Redis and PostgreSQL issuers are: the private
// servers' issuers say the same (lease/redis, lease/postgres).
const (
	redisTokens    = "INCR of a counter key per resource (<prefix>:token:<resource>), set on the lease key in one script"
	postgresTokens = "nextval of a sequence per run (fencecheck_lease_<id>_seq), taken in the transaction that writes the lease row"
)

// RedisTokens and PostgresTokens say what the Redis and PostgreSQL
// issuers' tokens are.
func RedisTokens() string    { return redisTokens }
func PostgresTokens() string { return postgresTokens }
