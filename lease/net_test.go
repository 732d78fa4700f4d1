package lease_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/harness"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/judge"
	"github.com/fencecheck/fencecheck/lease"
	pglease "github.com/fencecheck/fencecheck/lease/postgres"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
	"github.com/fencecheck/fencecheck/nemesis"
	"github.com/fencecheck/fencecheck/runstore"
	"github.com/fencecheck/fencecheck/sched"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// netIssuer is a real token issuer the tests run against, on the
// machine's server (see testdb), skipped with the reason when it does not
// answer.
type netIssuer struct {
	name   string
	server *testdb.Server
	// connect opens the run's store; leftovers counts what it left on the
	// server after Close.
	connect func(ctx context.Context, dsn string) (store lease.Store, leftovers func(t *testing.T) int, err error)
	issuer  func(dsn string) lease.Issuer
}

var netIssuers = []netIssuer{
	{name: "redis", server: testdb.Redis(),
		connect: func(ctx context.Context, dsn string) (lease.Store, func(*testing.T) int, error) {
			st, err := redislease.Connect(ctx, dsn)
			if err != nil {
				return nil, nil, err
			}
			return st, func(t *testing.T) int { return redisKeys(t, dsn, st.Prefix()) }, nil
		},
		issuer: func(dsn string) lease.Issuer { return redislease.NewIssuer(dsn, lease.DefaultPollOptions()) }},
	{name: "postgres", server: testdb.Postgres(),
		connect: func(ctx context.Context, dsn string) (lease.Store, func(*testing.T) int, error) {
			st, err := pglease.Connect(ctx, dsn)
			if err != nil {
				return nil, nil, err
			}
			return st, func(t *testing.T) int { return pgRelations(t, dsn, st.Table(), st.Sequence()) }, nil
		},
		issuer: func(dsn string) lease.Issuer { return pglease.NewIssuer(dsn, lease.DefaultPollOptions()) }},
}

func (n netIssuer) dsn(t *testing.T) string {
	t.Helper()
	dsn, skip := n.server.DSN()
	if skip != "" {
		t.Skip(skip)
	}
	return dsn
}

// counting wraps a store and signals every grant attempt that found the
// lease held, so that a test knows a worker is waiting without sleeping.
type counting struct {
	lease.Store
	refused chan string // the resource, after each refused grant
}

func (c *counting) Grant(ctx context.Context, resource string, worker int, ttl time.Duration) (uint64, bool, error) {
	token, ok, err := c.Store.Grant(ctx, resource, worker, ttl)
	if err == nil && !ok {
		select {
		case c.refused <- resource:
		default:
		}
	}
	return token, ok, err
}

func (c *counting) Floor(ctx context.Context, resource string, token uint64) error {
	return c.Store.(lease.FloorStore).Floor(ctx, resource, token)
}

func (c *counting) Close() error { return c.Store.(io.Closer).Close() }

// service is one run's lease service on a real issuer, closed (and its
// keys or table removed) when the test ends, whatever happened.
type service struct {
	*lease.Polled
	store     *counting
	rec       *histories.Recorder
	leftovers func(*testing.T) int
	closed    atomic.Bool
}

func openService(t *testing.T, n netIssuer, ttl time.Duration) *service {
	t.Helper()
	ctx := context.Background()
	st, leftovers, err := n.connect(ctx, n.dsn(t))
	require.NoError(t, err)
	rt := sched.NewReal()
	f, err := os.Create(filepath.Join(schema.TempDir(t), "history.jsonl"))
	require.NoError(t, err)
	rec := histories.NewRecorder(f, histories.RecorderOptions{Clock: rt, Retain: true})
	life, end := context.WithCancel(ctx)
	c := &counting{Store: st, refused: make(chan string, 1)}
	s := &service{Polled: lease.NewPolled(lease.Env{Life: life, Runtime: rt, Recorder: rec, TTL: ttl}, c, lease.DefaultPollOptions()),
		store: c, rec: rec, leftovers: leftovers}
	t.Cleanup(func() {
		end()
		s.close(t)
		_ = rec.Close()
	})
	return s
}

func (s *service) close(t *testing.T) {
	if s.closed.CompareAndSwap(false, true) {
		require.NoError(t, s.Close())
	}
}

// waitRefused waits until a grant on resource has been refused after the
// call: some worker is then polling for it.
func (s *service) waitRefused(t *testing.T, resource string) {
	t.Helper()
	for {
		select {
		case r := <-s.store.refused:
			if r == resource {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no grant on %s was refused", resource)
		}
	}
}

// leaseEvents are the lease events recorded so far on resource.
func (s *service) leaseEvents(resource string) []histories.Event {
	var out []histories.Event
	for _, e := range s.rec.Events() {
		if e.Actor == histories.ActorLease && e.Resource == resource {
			out = append(out, e)
		}
	}
	return out
}

type acquired struct {
	l   lease.Lease
	err error
}

func acquireAsync(ctx context.Context, s *service, resource string, worker int) <-chan acquired {
	ch := make(chan acquired, 1)
	go func() {
		l, err := s.Acquire(ctx, resource, worker)
		ch <- acquired{l, err}
	}()
	return ch
}

func forEachIssuer(t *testing.T, f func(t *testing.T, n netIssuer)) {
	for _, n := range netIssuers {
		t.Run(n.name, func(t *testing.T) {
			t.Parallel()
			f(t, n)
		})
	}
}

// TestNetSuccessiveGrantsIncrease: grant after grant on one resource, each
// token above the last; a second resource counts on its own or above.
func TestNetSuccessiveGrantsIncrease(t *testing.T) {
	t.Parallel()
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		s := openService(t, n, 10*time.Second)
		ctx := context.Background()
		var last uint64
		for i := range 30 {
			res := "r1"
			if i%3 == 2 {
				res = "r2"
			}
			l, err := s.Acquire(ctx, res, i%4)
			require.NoError(t, err)
			if res == "r1" {
				assert.Greater(t, l.Token, last, "grant %d", i)
				last = l.Token
			}
			s.Release(l)
		}
		evs := s.leaseEvents("r1")
		require.Len(t, evs, 40)
		for i := 0; i < len(evs); i += 2 {
			assert.Equal(t, histories.FAcquire, evs[i].F)
			assert.Equal(t, histories.FRelease, evs[i+1].F)
			assert.Equal(t, evs[i].Token, evs[i+1].Token)
		}
	})
}

// TestNetWaiterGetsAHigherToken: a second worker waits while the first
// holds the lease, and gets a higher token once the first releases it, or
// once its TTL runs out on the issuer (recorded as an expiry before the
// new grant).
func TestNetWaiterGetsAHigherToken(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ttl     time.Duration
		release bool
	}{
		{"released", 10 * time.Second, true},
		{"TTL runs out", 300 * time.Millisecond, false},
	}
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				s := openService(t, n, tc.ttl)
				ctx := context.Background()
				start := time.Now() // before the issuer's clock starts the TTL
				first, err := s.Acquire(ctx, "r", 0)
				require.NoError(t, err)
				second := acquireAsync(ctx, s, "r", 1)
				s.waitRefused(t, "r")
				if tc.release {
					select {
					case got := <-second:
						t.Fatalf("the second worker got %+v while the first held the lease", got)
					default:
					}
					s.Release(first)
				}
				got := <-second
				require.NoError(t, got.err)
				assert.Greater(t, got.l.Token, first.Token)
				if !tc.release {
					assert.GreaterOrEqual(t, time.Since(start), tc.ttl-time.Millisecond, "granted again before the TTL ran out")
				}
				evs := s.leaseEvents("r")
				require.Len(t, evs, 3)
				want := histories.FRelease
				if !tc.release {
					want = histories.FExpire
					assert.Contains(t, evs[1].Detail, "TTL elapsed")
				}
				assert.Equal(t, []string{histories.FAcquire, want, histories.FAcquire}, []string{evs[0].F, evs[1].F, evs[2].F})
				assert.Equal(t, first.Token, evs[1].Token)
			})
		}
	})
}

// TestNetExpireEndsTheLease: the nemesis's expire ends the current lease
// on the issuer at once (the next grant needs no wait and is higher), and
// ending a lease that is no longer current does nothing.
func TestNetExpireEndsTheLease(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		end  func(s *service, l lease.Lease) bool
	}{
		{"expire", func(s *service, l lease.Lease) bool { return s.Expire(l.Resource) }},
		{"expire token", func(s *service, l lease.Lease) bool { return s.ExpireToken(l.Resource, l.Token) }},
	}
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				s := openService(t, n, 10*time.Second)
				ctx := context.Background()
				first, err := s.Acquire(ctx, "r", 0)
				require.NoError(t, err)
				assert.False(t, s.ExpireToken("r", first.Token+1), "not the current token")
				require.True(t, tc.end(s, first))
				assert.False(t, tc.end(s, first), "already ended")
				second, err := s.Acquire(ctx, "r", 1)
				require.NoError(t, err)
				assert.Greater(t, second.Token, first.Token)
				s.Release(first) // stale: no event
				assert.False(t, s.ExpireToken("r", first.Token))
				evs := s.leaseEvents("r")
				require.Len(t, evs, 3)
				assert.Equal(t, histories.FExpire, evs[1].F)
				assert.Contains(t, evs[1].Detail, "nemesis")
				assert.Equal(t, histories.FAcquire, evs[2].F)
			})
		}
	})
}

// TestNetCancelStopsAWaitingAcquire: a worker waiting for a held lease
// gives up when its context ends.
func TestNetCancelStopsAWaitingAcquire(t *testing.T) {
	t.Parallel()
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		s := openService(t, n, 10*time.Second)
		_, err := s.Acquire(context.Background(), "r", 0)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		waiting := acquireAsync(ctx, s, "r", 1)
		s.waitRefused(t, "r")
		cancel()
		got := <-waiting
		require.ErrorIs(t, got.err, context.Canceled)
	})
}

// TestNetCloseRemovesWhatTheRunCreated: after Close, none of the run's
// keys, tables or sequences are left on the server; a floor set before
// the run still makes the first token higher.
func TestNetCloseRemovesWhatTheRunCreated(t *testing.T) {
	t.Parallel()
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		s := openService(t, n, 10*time.Second)
		s.StartAbove("r", 1<<32)
		l, err := s.Acquire(context.Background(), "r", 0)
		require.NoError(t, err)
		assert.Greater(t, l.Token, uint64(1<<32))
		_, err = s.Acquire(context.Background(), "other", 1) // held at Close
		require.NoError(t, err)
		require.Positive(t, s.leftovers(t), "the run created nothing to remove")
		s.close(t)
		assert.Zero(t, s.leftovers(t))
	})
}

// TestNetTokensEndAt2To63: both issuers count in signed 64 bits, so the
// last token is 2^63-1; the grant after it fails, and no token wraps or
// repeats.
func TestNetTokensEndAt2To63(t *testing.T) {
	t.Parallel()
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		s := openService(t, n, 10*time.Second)
		ctx := context.Background()
		s.StartAbove("r", math.MaxInt64-2)
		for _, want := range []uint64{math.MaxInt64 - 1, math.MaxInt64} {
			l, err := s.Acquire(ctx, "r", 0)
			require.NoError(t, err)
			assert.Equal(t, want, l.Token)
			s.Release(l)
		}
		_, err := s.Acquire(ctx, "r", 0)
		require.Error(t, err, "a token above 2^63-1")
		t.Logf("%s: %v", n.name, err)
	})
}

func TestNetIssuerNameHidesThePassword(t *testing.T) {
	t.Parallel()
	for _, iss := range []lease.Issuer{
		redislease.NewIssuer("redis://u:s3cr3t@127.0.0.1:1/0", lease.DefaultPollOptions()),
		pglease.NewIssuer("postgres://u:s3cr3t@127.0.0.1:1/db", lease.DefaultPollOptions()),
	} {
		t.Run(fmt.Sprintf("%T", iss), func(t *testing.T) {
			t.Parallel()
			assert.NotContains(t, iss.Name(), "s3cr3t")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := iss.Open(ctx, lease.Env{})
			require.Error(t, err, "nothing listens on port 1")
			assert.NotContains(t, err.Error(), "s3cr3t")
		})
	}
}

// goneAfter reads how long after the grant was asked for a lease ran out.
var goneAfter = regexp.MustCompile(`TTL elapsed \(.* gone from the issuer (\S+) after`)

// redisKeys counts the keys under prefix.
func redisKeys(t *testing.T, dsn, prefix string) int {
	t.Helper()
	opts, err := redis.ParseURL(dsn)
	require.NoError(t, err)
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	n := 0
	iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		n++
	}
	require.NoError(t, iter.Err())
	return n
}

// pgRelations counts which of the named relations exist.
func pgRelations(t *testing.T, dsn string, names ...string) int {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = ANY($1)", names).Scan(&n))
	return n
}

// TestNetHarnessRun: a real run against memory://fenced, with its tokens
// from each real issuer under pause, delay and expire, holds (or is
// inconclusive on a starved machine), and its history's grants on each
// resource carry strictly increasing tokens, each lease ending before the
// next grant, and none running out on the issuer before its TTL.
func TestNetHarnessRun(t *testing.T) {
	t.Parallel()
	forEachIssuer(t, func(t *testing.T, n netIssuer) {
		tgt, err := memory.Open("fenced")
		require.NoError(t, err)
		cfg := harness.DefaultConfig()
		cfg.Target.Receiver, cfg.Target.Name, cfg.Store.Dir = tgt, "memory://fenced", schema.TempDir(t)
		cfg.Runtime.Deterministic, cfg.Workload.Duration, cfg.Leases.Issuer = false, time.Second, n.issuer(n.dsn(t))
		cfg.Nemesis.Faults = append(cfg.Nemesis.Faults, nemesis.NewExpire())
		res, err := harness.Run(context.Background(), cfg)
		require.NoError(t, err)
		assert.NotEqual(t, judge.Violated, res.Verdict, res.Reason)
		assert.Empty(t, res.Warnings)
		h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(res.Dir, runstore.History)})
		require.NoError(t, err)
		last := map[string]uint64{}
		held := map[string]bool{}
		grants, ttlEnds := 0, 0
		for _, e := range h.Others {
			if e.Actor != histories.ActorLease {
				continue
			}
			switch e.F {
			case histories.FAcquire:
				grants++
				assert.Greater(t, e.Token, last[e.Resource], "grant on %s: %s", e.Resource, e.Detail)
				assert.False(t, held[e.Resource], "granted %s while held: %s", e.Resource, e.Detail)
				last[e.Resource], held[e.Resource] = e.Token, true
			case histories.FRelease, histories.FExpire:
				if m := goneAfter.FindStringSubmatch(e.Detail); m != nil {
					after, err := time.ParseDuration(m[1])
					require.NoError(t, err)
					ttlEnds++
					// The server's clock and ours may differ by a little.
					assert.GreaterOrEqual(t, after, cfg.Leases.TTL*9/10, "the issuer ended a lease early: %s", e.Detail)
				}
				assert.Equal(t, last[e.Resource], e.Token, "%s ends a lease that is not current: %s", e.F, e.Detail)
				held[e.Resource] = false
			}
		}
		assert.Greater(t, grants, 4, "the workers took leases")
		t.Logf("%s: %s, %d grants, %d expiries (%d by TTL), %d stale writes", n.name, res.Verdict, grants, res.Coverage.LeaseExpiries, ttlEnds, res.Coverage.StaleWrites)
	})
}
