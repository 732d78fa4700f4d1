// Package natslease issues leases and fencing tokens from NATS
// JetStream KV: a run's leases are the keys of a bucket of its own,
// fencecheck_lease_<16 hex>, whose TTL is the run's lease TTL. A grant
// is Create(resource): it succeeds only while the key is absent, and the
// token is the revision at which the key was created, the bucket
// stream's sequence, which only grows. A renewal rewrites the key with
// Update on the revision it read, so that its age, and with it the TTL,
// starts again; a release deletes it (on the revision read); an expiry
// is the server removing it when its TTL has run out.
//
// The TTL is the bucket's (MaxAge), the same for every key, which every
// JetStream server supports; per-key TTLs need a 2.11 server and are not
// used. Close deletes the bucket and touches nothing else on the server,
// which may be shared.
//
// The weakness to know: the sequence is only as durable as the server's
// store. The server fsyncs every two minutes by default
// (sync_interval); a machine that loses what it had not fsynced can
// bring the stream back with a last sequence below tokens already
// granted. A SIGKILL of the process does not lose it (the page cache
// survives); see docs/leases.md.
package natslease

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/lease"
)

// BucketPrefix starts the name of every bucket an issuer creates.
const BucketPrefix = "fencecheck_lease_"

// Tokens says what the tokens are, for lease.TokenSource.
const Tokens = "the revision at which the lock key was created in a JetStream KV bucket (the bucket stream's sequence)"

// connectTimeout bounds the dial.
const connectTimeout = 5 * time.Second

// NewIssuer returns the issuer of a Polled lease service on the NATS
// server a nats:// URL names. It connects in Open.
func NewIssuer(spec string, opts lease.PollOptions) lease.Issuer {
	return &issuer{PolledIssuer: lease.PolledIssuer{Spec: spec, Opts: opts, Connect: func(ctx context.Context, spec string) (lease.Store, error) {
		return Connect(ctx, spec)
	}}}
}

// issuer is a PolledIssuer that names its tokens.
type issuer struct{ lease.PolledIssuer }

// TokenSource implements lease.TokenSource.
func (i *issuer) TokenSource() string { return Tokens }

// Store is a run's lease keys in one bucket on one NATS server.
type Store struct {
	name    string
	secrets []string
	nc      *nats.Conn
	js      jetstream.JetStream
	bucket  string

	mu  sync.Mutex
	kv  jetstream.KeyValue // created at the first grant, with its TTL
	ttl time.Duration
}

// Connect connects to the server spec names and checks that JetStream
// answers. Its errors carry no password.
func Connect(ctx context.Context, spec string) (*Store, error) {
	s := &Store{name: redact.Spec(spec), secrets: redact.Secrets(spec, nil), bucket: BucketPrefix + unique.Hex(8)}
	nc, err := natsserver.Connect(spec, "fencecheck leases "+s.bucket, connectTimeout)
	if err != nil {
		return nil, s.wrap("connect", err)
	}
	js, err := jetstream.New(nc)
	if err == nil {
		_, err = js.AccountInfo(ctx)
	}
	if err != nil {
		nc.Close()
		return nil, s.wrap("connect (is JetStream enabled?)", err)
	}
	s.nc, s.js = nc, js
	return s, nil
}

// wrap names the issuer, without the password.
func (s *Store) wrap(what string, err error) error {
	return redact.Error(fmt.Errorf("nats issuer %s: %s: %w", s.name, what, err), s.secrets)
}

// Bucket is the run's bucket.
func (s *Store) Bucket() string { return s.bucket }

// bucketFor returns the bucket, created at the first call with ttl as
// its TTL. A bucket has one TTL: a later ttl must be the same.
func (s *Store) bucketFor(ctx context.Context, ttl time.Duration) (jetstream.KeyValue, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kv != nil {
		if ttl != s.ttl {
			return nil, fmt.Errorf("nats issuer: a lease of %v asked of a bucket whose TTL is %v (one TTL per bucket)", ttl, s.ttl)
		}
		return s.kv, nil
	}
	kv, err := s.js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket: s.bucket, Description: "fencecheck leases: deleted at the run's end",
		History: 1, TTL: ttl, Storage: jetstream.FileStorage, Replicas: 1,
	})
	if err != nil {
		return nil, unanswered(s.wrap("create the bucket "+s.bucket, err))
	}
	s.kv, s.ttl = kv, ttl
	return kv, nil
}

// current returns the bucket, or nil before the first grant.
func (s *Store) current() jetstream.KeyValue {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kv
}

// Grant implements lease.Store: Create, which the server refuses while
// the key exists (ErrKeyExists: a lease is current).
func (s *Store) Grant(ctx context.Context, resource string, _ int, ttl time.Duration) (uint64, bool, error) {
	kv, err := s.bucketFor(ctx, ttl)
	if err != nil {
		return 0, false, err
	}
	rev, err := kv.Create(ctx, key(resource), nil)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, unanswered(s.wrap("grant", err))
	}
	return rev, true, nil
}

// held returns the key's entry while the lease that carries token is
// current: the entry created at revision token, or renewed for it.
func (s *Store) held(ctx context.Context, resource string, token uint64) (jetstream.KeyValueEntry, error) {
	kv := s.current()
	if kv == nil {
		return nil, nil
	}
	e, err := kv.Get(ctx, key(resource))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, unanswered(s.wrap("read the lease", err))
	}
	// Created and not renewed: empty, at the token's revision. Renewed:
	// the token is its value, at a later revision.
	if (len(e.Value()) == 0 && e.Revision() == token) || string(e.Value()) == strconv.FormatUint(token, 10) {
		return e, nil
	}
	return nil, nil
}

// End implements lease.Store: delete the key on the revision read, if
// it still holds token.
func (s *Store) End(ctx context.Context, resource string, token uint64) (bool, error) {
	e, err := s.held(ctx, resource, token)
	if err != nil || e == nil {
		return false, err
	}
	err = s.current().Delete(ctx, key(resource), jetstream.LastRevision(e.Revision()))
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return false, nil
	}
	if err != nil {
		return false, unanswered(s.wrap("end the lease", err))
	}
	return true, nil
}

// Left implements lease.Store: the TTL less the entry's age, on the
// server's clock as the entry's timestamp gives it; at least 1ms while
// the server still has the key (it removes expired keys a moment late).
func (s *Store) Left(ctx context.Context, resource string, token uint64) (time.Duration, error) {
	e, err := s.held(ctx, resource, token)
	if err != nil || e == nil {
		return 0, err
	}
	return max(time.Millisecond, s.ttl-time.Since(e.Created())), nil
}

// Renew implements lease.Store: rewrite the key on the revision read,
// with the token as its value, so that its age starts again.
func (s *Store) Renew(ctx context.Context, resource string, token uint64, ttl time.Duration) (bool, error) {
	if _, err := s.bucketFor(ctx, ttl); err != nil {
		return false, err
	}
	e, err := s.held(ctx, resource, token)
	if err != nil || e == nil {
		return false, err
	}
	_, err = s.current().Update(ctx, key(resource), []byte(strconv.FormatUint(token, 10)), e.Revision())
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return false, nil
	}
	if err != nil {
		return false, unanswered(s.wrap("renew the lease", err))
	}
	return true, nil
}

// unanswered marks err as lease.ErrUnavailable when the server did not
// answer: no connection, a timeout, no JetStream to respond. An answer
// of the server's (an API error) stays as it is.
func unanswered(err error) error {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		return err
	}
	return lease.Unavailable(err)
}

// Close deletes the run's bucket and disconnects.
func (s *Store) Close() error {
	defer s.nc.Close()
	if s.current() == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.js.DeleteKeyValue(ctx, s.bucket); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		return s.wrap(fmt.Sprintf("the bucket %s was left behind (remove it with: nats kv del -f %s); delete it", s.bucket, s.bucket), err)
	}
	return nil
}
