// Package redislease issues leases and fencing tokens from a Redis
// server: the token of a resource is INCR <prefix>:token:<resource>, and
// its lease is the key <prefix>:lease:<resource>, holding the token, set
// with PX <ttl>. One Lua script grants: if the lease key is absent, it
// INCRs the token and sets the lease key to it, atomically on the server,
// so a grant's token is above every earlier holder's.
//
// Every key of a run carries the prefix fencecheck:<random hex>:, and
// Close removes them all (SCAN MATCH and DEL); nothing else on the server
// is touched: no key of another run, no server setting, no script cache.
// A waiting worker polls (see lease.Polled) rather than subscribing to
// keyspace notifications, which would need a change to the server's
// settings, shared with others.
//
// The weakness to know: the counter is only as durable as the server's
// persistence. Without appendfsync always, a server that crashes can come
// back with a counter below tokens it already handed out, and grant them
// again; a replica promoted after a failover can lag the same way
// (Replicated shows it, and Settings.Wait, grants that wait for the
// replica, prevents it). Redis
// is then not a monotonic token issuer, whatever this package does.
package redislease

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/lease"
)

// NewIssuer returns the issuer of a Polled lease service on the Redis server a redis:// or
// rediss:// URL names (go-redis's ParseURL: user, password, database).
// It connects in Open.
func NewIssuer(spec string, opts lease.PollOptions) *lease.PolledIssuer {
	return &lease.PolledIssuer{Spec: spec, Opts: opts, Connect: func(ctx context.Context, spec string) (lease.Store, error) {
		return Connect(ctx, spec)
	}}
}

// Store is a run's lease keys on one Redis server.
type Store struct {
	client *redis.Client
	prefix string
	// wait is how many replicas must acknowledge a grant before it is
	// handed out (Settings.Wait); 0 waits for none.
	wait int
	// tally, when set, hears of every token the server issued.
	tally *tally
}

// quietLogs drops go-redis's own log, which goes to stderr for the whole
// process (there is no per-client logger): its lines are a connection
// pool's failed dials and the like, each of which also reaches the
// caller as an error, and a private server that fencecheck crashes fails
// dials on purpose, which would print a line per attempt in the middle
// of a run's output.
var quietLogs sync.Once

type noLog struct{}

func (noLog) Printf(context.Context, string, ...any) {}

// Connect connects to the server spec names and checks that it answers.
// Its errors carry no password.
func Connect(ctx context.Context, spec string) (*Store, error) {
	secrets := redact.Secrets(spec, nil)
	opts, err := redis.ParseURL(spec)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("redis issuer %s: %w", redact.Spec(spec), err), secrets)
	}
	s, err := connect(ctx, opts)
	if err != nil {
		return nil, redact.Error(fmt.Errorf("redis issuer %s: %w", redact.Spec(spec), err), secrets)
	}
	return s, nil
}

// connect connects with opts and checks that the server answers.
func connect(ctx context.Context, opts *redis.Options) (*Store, error) {
	quietLogs.Do(func() { redis.SetLogger(noLog{}) })
	client := redis.NewClient(opts)
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, err
	}
	return &Store{client: client, prefix: "fencecheck:" + unique.Hex(8) + ":"}, nil
}

// Prefix is what every key of the run starts with.
func (s *Store) Prefix() string { return s.prefix }

func (s *Store) leaseKey(resource string) string { return s.prefix + "lease:" + resource }
func (s *Store) tokenKey(resource string) string { return s.prefix + "token:" + resource }

// The scripts keep tokens as strings: Lua numbers are doubles, exact only
// up to 2^53, and tokens go up to 2^63-1.
var (
	grantScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
redis.call('INCR', KEYS[2])
local token = redis.call('GET', KEYS[2])
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return token`)
	endScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
	leftScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PTTL', KEYS[1]) end
return -2`)
	renewScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`)
	floorScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1]) or '0'
local floor = ARGV[1]
if #cur < #floor or (#cur == #floor and cur < floor) then redis.call('SET', KEYS[1], floor) end
return 0`)
)

// Grant implements lease.Store. INCR fails once the counter reaches
// 2^63-1 ("increment or decrement would overflow"): the issuer then
// grants no more, and Acquire returns that error.
//
// With replicas to wait for (Settings.Wait), the grant's script and a
// WAIT run on one connection, since WAIT waits for that connection's
// writes: a token fewer replicas acknowledged within WaitTimeout is
// refused, its lease ended, and the grant fails as one the issuer did not
// answer, so that the worker asks again. A promoted replica then holds
// every token handed out.
func (s *Store) Grant(ctx context.Context, resource string, _ int, ttl time.Duration) (uint64, bool, error) {
	counted := s.tally.begin()
	var sc redis.Scripter = s.client
	if s.wait > 0 {
		conn := s.client.Conn()
		defer conn.Close()
		sc = conn
	}
	ms := max(1, (ttl+time.Millisecond-1)/time.Millisecond)
	v, err := grantScript.Run(ctx, sc, []string{s.leaseKey(resource), s.tokenKey(resource)}, int64(ms)).Text()
	if errors.Is(err, redis.Nil) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("redis grant: %w", unanswered(err))
	}
	token, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("redis grant: token %q: %w", v, err)
	}
	if s.wait > 0 {
		if err := s.await(ctx, sc.(*redis.Conn), resource, token); err != nil {
			s.tally.issue(counted, true)
			return 0, false, err
		}
	}
	s.tally.issue(counted, false)
	return token, true, nil
}

// await waits until s.wait replicas acknowledged the grant of token on
// resource, made on conn; when fewer did, it ends the grant's lease and
// says the token was refused.
func (s *Store) await(ctx context.Context, conn *redis.Conn, resource string, token uint64) error {
	n, err := conn.Wait(ctx, s.wait, WaitTimeout).Result()
	if err == nil && n >= int64(s.wait) {
		return nil
	}
	why := fmt.Sprintf("%d of %d replicas acknowledged it within %v", n, s.wait, WaitTimeout)
	if err != nil {
		why = fmt.Sprintf("WAIT failed: %v", err)
	}
	// The lease is ended so that another grant need not wait for its TTL;
	// if the end fails, the lease runs out by it, held by no worker.
	_ = endScript.Run(ctx, conn, []string{s.leaseKey(resource)}, strconv.FormatUint(token, 10)).Err()
	return lease.Unavailable(fmt.Errorf("redis grant: token %d refused, not handed out: %s", token, why))
}

// End implements lease.Store: compare-and-delete.
func (s *Store) End(ctx context.Context, resource string, token uint64) (bool, error) {
	n, err := endScript.Run(ctx, s.client, []string{s.leaseKey(resource)}, strconv.FormatUint(token, 10)).Int64()
	if err != nil {
		return false, fmt.Errorf("redis end lease: %w", unanswered(err))
	}
	return n == 1, nil
}

// Left implements lease.Store: the lease key's PTTL while it holds token.
func (s *Store) Left(ctx context.Context, resource string, token uint64) (time.Duration, error) {
	ms, err := leftScript.Run(ctx, s.client, []string{s.leaseKey(resource)}, strconv.FormatUint(token, 10)).Int64()
	if err != nil {
		return 0, fmt.Errorf("redis lease TTL: %w", unanswered(err))
	}
	switch {
	case ms == -2:
		return 0, nil
	case ms < 0:
		return 0, fmt.Errorf("redis lease TTL: the lease key of %s has no expiry", resource)
	}
	return max(time.Millisecond, time.Duration(ms)*time.Millisecond), nil
}

// Renew implements lease.Store: compare-and-PEXPIRE, in one script, so
// that a lease that ran out and was granted again is never extended.
func (s *Store) Renew(ctx context.Context, resource string, token uint64, ttl time.Duration) (bool, error) {
	ms := max(1, (ttl+time.Millisecond-1)/time.Millisecond)
	n, err := renewScript.Run(ctx, s.client, []string{s.leaseKey(resource)}, strconv.FormatUint(token, 10), int64(ms)).Int64()
	if err != nil {
		return false, fmt.Errorf("redis renew lease: %w", unanswered(err))
	}
	return n == 1, nil
}

// Floor implements lease.FloorStore: the counter is raised to token, so
// the next INCR gives more. A counter cannot pass 2^63-1: above it, the
// tokens stay as they are.
func (s *Store) Floor(ctx context.Context, resource string, token uint64) error {
	if token > math.MaxInt64 {
		return fmt.Errorf("redis floor: token %d is above what INCR can count to", token)
	}
	if err := floorScript.Run(ctx, s.client, []string{s.tokenKey(resource)}, strconv.FormatUint(token, 10)).Err(); err != nil {
		return fmt.Errorf("redis floor: %w", unanswered(err))
	}
	return nil
}

// unanswered marks err as lease.ErrUnavailable when the server did not
// answer the call: no connection, a connection that broke, a call that
// timed out (a frozen server), or a server still loading its data after
// a restart. An error the server answered with (INCR at its end) stays
// as it is, and so does a call on a client already closed.
func unanswered(err error) error {
	var reply redis.Error
	switch {
	case errors.Is(err, redis.ErrClosed):
		return err
	case errors.As(err, &reply):
		msg := reply.Error()
		if strings.HasPrefix(msg, "LOADING ") || strings.HasPrefix(msg, "BUSY ") || strings.HasPrefix(msg, "MASTERDOWN ") {
			return lease.Unavailable(err)
		}
		return err
	}
	return lease.Unavailable(err)
}

// Close removes every key of the run and disconnects.
func (s *Store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.removeKeys(ctx)
	if cerr := s.client.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("redis close: %w", cerr)
	}
	return err
}

func (s *Store) removeKeys(ctx context.Context) error {
	iter := s.client.Scan(ctx, 0, s.prefix+"*", 100).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("redis remove the run's keys %s*: %w", s.prefix, err)
	}
	if len(keys) == 0 {
		return nil
	}
	if err := s.client.Del(ctx, keys...).Err(); err != nil {
		return fmt.Errorf("redis remove the run's keys %s*: %w", s.prefix, err)
	}
	return nil
}
