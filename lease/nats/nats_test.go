package natslease

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/natsserver"
	"github.com/fencecheck/fencecheck/internal/testsupport/natsbuckets"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/lease"
)

// helperEnv makes the test binary a private NATS server.
const helperEnv = "FENCECHECK_NATS_LEASE_SERVER_HELPER"

// TestHelperNATSServer is not a test: the private issuer's tests run
// the test binary as the server, with its configuration file last.
func TestHelperNATSServer(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := natsserver.Serve(ctx, os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// created are the buckets the tests created on the shared server, which
// TestMain checks are gone.
var created natsbuckets.Set

func TestMain(m *testing.M) { os.Exit(created.Main(m, helperEnv)) }

// connect opens a store on the shared server, closed when the test ends.
func connect(t *testing.T) *Store {
	t.Helper()
	url, skip := testdb.NATS().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	s, err := Connect(context.Background(), url)
	require.NoError(t, err)
	created.Add(s.Bucket())
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// TestGrantEndRenew: a grant is refused while a lease is current; the
// token is the key's creation revision and grows; only the lease's own
// token ends or renews it; after End the next grant has a higher token.
func TestGrantEndRenew(t *testing.T) {
	t.Parallel()
	s := connect(t)
	ctx := context.Background()
	ttl := time.Minute
	t1, ok, err := s.Grant(ctx, "r", 0, ttl)
	require.NoError(t, err)
	require.True(t, ok)
	_, ok, err = s.Grant(ctx, "r", 1, ttl)
	require.NoError(t, err)
	assert.False(t, ok, "held")
	left, err := s.Left(ctx, "r", t1)
	require.NoError(t, err)
	assert.Positive(t, left)
	ok, err = s.Renew(ctx, "r", t1, ttl)
	require.NoError(t, err)
	assert.True(t, ok)
	left, err = s.Left(ctx, "r", t1)
	require.NoError(t, err)
	assert.Positive(t, left, "still the lease of %d after its renewal", t1)
	for _, wrong := range []uint64{t1 - 1, t1 + 1} {
		ok, err = s.End(ctx, "r", wrong)
		require.NoError(t, err)
		assert.False(t, ok, "token %d does not hold it", wrong)
	}
	ok, err = s.End(ctx, "r", t1)
	require.NoError(t, err)
	assert.True(t, ok)
	left, err = s.Left(ctx, "r", t1)
	require.NoError(t, err)
	assert.Zero(t, left)
	t2, ok, err := s.Grant(ctx, "r", 1, ttl)
	require.NoError(t, err)
	require.True(t, ok)
	assert.Greater(t, t2, t1)
	other, ok, err := s.Grant(ctx, "a b/ü", 0, ttl)
	require.NoError(t, err)
	require.True(t, ok, "another resource, a name that is no KV key")
	assert.Greater(t, other, t2)
	_, _, err = s.Grant(ctx, "r2", 0, time.Second)
	assert.ErrorContains(t, err, "one TTL per bucket")
}

// TestTTLEndsTheLease: once the bucket's TTL has run out the server
// removes the key, and the next grant has a higher token.
func TestTTLEndsTheLease(t *testing.T) {
	t.Parallel()
	s := connect(t)
	ctx := context.Background()
	ttl := 200 * time.Millisecond
	t1, ok, err := s.Grant(ctx, "r", 0, ttl)
	require.NoError(t, err)
	require.True(t, ok)
	var t2 uint64
	require.Eventually(t, func() bool {
		t2, ok, err = s.Grant(ctx, "r", 1, ttl)
		return err == nil && ok
	}, time.Minute, 20*time.Millisecond, "the server removes the key after its TTL")
	assert.Greater(t, t2, t1)
}

// TestCloseDeletesTheBucket: Close deletes the run's bucket.
func TestCloseDeletesTheBucket(t *testing.T) {
	t.Parallel()
	url, skip := testdb.NATS().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	ctx := context.Background()
	s, err := Connect(ctx, url)
	require.NoError(t, err)
	created.Add(s.Bucket())
	_, _, err = s.Grant(ctx, "r", 0, time.Minute)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	_, err = js.KeyValue(ctx, s.Bucket())
	assert.ErrorIs(t, err, jetstream.ErrBucketNotFound)
}

// TestNameHidesThePassword: neither the issuer's name nor its error
// shows the password.
func TestNameHidesThePassword(t *testing.T) {
	t.Parallel()
	iss := NewIssuer("nats://u:s3cr3t@127.0.0.1:1", lease.DefaultPollOptions())
	assert.NotContains(t, iss.Name(), "s3cr3t")
	_, err := iss.Open(context.Background(), lease.Env{})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cr3t")
	assert.Contains(t, err.Error(), "u:xxxxx@")
}

// TestPrivateIssuerRestart: the private server's tokens keep growing
// across a SIGKILL and restart, under the default fsync and with
// sync=always (a SIGKILL leaves the page cache; a power cut is not
// tested).
func TestPrivateIssuerRestart(t *testing.T) {
	t.Parallel()
	env, err := exec.LookPath("env")
	require.NoError(t, err)
	command := []string{env, helperEnv + "=1", os.Args[0], "-test.run=^TestHelperNATSServer$", "--"}
	for _, sync := range []bool{false, true} {
		t.Run(fmt.Sprintf("sync=%v", sync), func(t *testing.T) {
			t.Parallel()
			iss := NewPrivateIssuer(sync, command, lease.DefaultPollOptions())
			assert.Equal(t, Tokens, iss.TokenSource())
			svc := openPrivate(t, iss)
			ctx := context.Background()
			var last uint64
			for round := range 2 {
				for range 3 {
					l, err := svc.Acquire(ctx, "r", 0)
					require.NoError(t, err)
					assert.Greater(t, l.Token, last, "round %d", round)
					last = l.Token
					svc.Release(l)
				}
				if round == 0 {
					require.NoError(t, svc.Kill(0))
					require.NoError(t, svc.Start(ctx, 0))
				}
			}
		})
	}
}
