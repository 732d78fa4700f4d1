package main

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
	"github.com/fencecheck/fencecheck/targets/natstarget"
)

// natsURL returns the NATS server's URL, or skips the test with the
// reason (see testdb).
func natsURL(t *testing.T) string {
	t.Helper()
	url, skip := testdb.NATS().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	return url
}

// natsRunArgs are a short run against NATS whose faults act from the
// start and whose length is a number of operations, as redisRunArgs.
func natsRunArgs(spec string, extra ...string) []string {
	return append([]string{"run", "--target", spec, "--workers", "8", "--ops", "400", "--op-timeout", "2s",
		"--lease-ttl", "30ms", "--nemesis", "pause,delay", "--nemesis-script", "0s:+pause,0s:+delay",
		"--seed", "1", "--store", "s", "--no-report"}, extra...)
}

// assertNoBucketLeft checks that no bucket on the shared server holds the
// run's resources: every bucket with the target's prefix is looked into
// for the run's first resource (the run's own bucket would hold it).
// Buckets of other runs going on meanwhile do not hold it.
func assertNoBucketLeft(t *testing.T, url, stdout string) {
	t.Helper()
	m := resourcePrefix.FindStringSubmatch(stdout)
	require.NotNil(t, m, "no resource names in the output:\n%s", stdout)
	nc, err := nats.Connect(url, nats.Timeout(5*time.Second))
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lister := js.KeyValueStoreNames(ctx)
	for name := range lister.Name() {
		if !strings.HasPrefix(name, natstarget.BucketPrefix) {
			continue
		}
		kv, err := js.KeyValue(ctx, name)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			continue // deleted since it was listed
		}
		require.NoError(t, err)
		_, err = kv.Get(ctx, m[1]+"-r0")
		assert.True(t, errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrBucketNotFound),
			"bucket %s, left on the server, holds the run's resource %s-r0 (%v)", name, m[1], err)
	}
	require.NoError(t, lister.Error())
}

// TestRunNATSModes: against the shared NATS server, atomic holds (exit
// 0) and check-then-set is found (exit 1), and the stored history
// agrees; the run's bucket is deleted at its end.
func TestRunNATSModes(t *testing.T) {
	t.Parallel()
	url := natsURL(t)
	for _, tc := range []struct {
		mode, verdict string
		code          int
	}{{"atomic", "HELD", exitHeld}, {"check-then-set", "VIOLATED", exitViolated}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, natsRunArgs(url, "--nats-mode", tc.mode)...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "verdict     "+tc.verdict)
			assert.Contains(t, r.stdout, "("+tc.mode+")")
			assertNoBucketLeft(t, url, r.stdout)
			again := fencecheck(t, dir, "check", "s/latest/history.jsonl")
			assert.Equal(t, tc.code, again.code, "the stored history agrees: %s", again.stdout)
		})
	}
}

// TestRunNATSThroughTheTCPProxy: the TCP faults act on the connection to
// the shared server, and atomic still holds.
func TestRunNATSThroughTheTCPProxy(t *testing.T) {
	t.Parallel()
	url := natsURL(t)
	r := fencecheck(t, schema.TempDir(t), "run", "--target", url, "--workers", "4", "--ops", "300", "--op-timeout", "2s",
		"--lease-ttl", "30ms", "--nemesis", "pause,net-latency,net-reset", "--seed", "1", "--store", "s", "--no-report")
	assert.Equal(t, exitHeld, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "verdict     HELD")
	assertNoBucketLeft(t, url, r.stdout)
}

// TestVerifyNATS: verify passes atomic, tokens up to 2^64-1 included,
// and fails check-then-set on its race; the shared server cannot be
// restarted, so restart-durability is skipped there.
func TestVerifyNATS(t *testing.T) {
	t.Parallel()
	url := natsURL(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"atomic", nil, exitHeld, "| check-then-set-race | in each of 5 rounds token 9 accepted and stored, whatever the order | 5 rounds: token 9 stored every time | pass |"},
		{"check-then-set", []string{"--nats-mode", "check-then-set"}, exitViolated, "| check-then-set-race |"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), append([]string{"verify", "--target", url, "--store", "s"}, tc.args...)...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.want)
			assert.Contains(t, r.stdout, "token domain 1 … 2^64-1 (18446744073709551615): no larger token is sent")
			assert.Contains(t, r.stdout, "| restart-durability |")
		})
	}
}

// crashes reads how many receiver crashes a run counted.
var crashes = regexp.MustCompile(`(\d+) receiver crashes`)

// TestRunNATSPrivateServerKill: the private server, crashed with SIGKILL
// and started again on its store under the kill fault, with the default
// fsync (every two minutes) and with sync=always. Atomic is never
// violated under either: a SIGKILL leaves the acknowledged writes in the page cache, so
// the default loses none of them here (a power cut is not tested). And
// verify's restart-durability passes on the private server.
func TestRunNATSPrivateServerKill(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"nats", "nats://embedded?sync=always"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "run", "--target", spec, "--workers", "4", "--ops", "200", "--op-timeout", "2s",
				"--lease-ttl", "30ms", "--nemesis", "pause,kill", "--nemesis-script", "0s:+pause,0s:+kill",
				"--seed", "1", "--store", "s", "--no-report")
			// Never a violation. On a loaded machine the server may be
			// down for most of the run, and a resource can end with no
			// acknowledged write, or no stale write may be answered after
			// a crash: then the run says inconclusive, and why.
			require.Contains(t, []int{exitHeld, exitInconclusive}, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			if r.code == exitInconclusive {
				assert.Regexp(t, `verdict     INCONCLUSIVE: (too little evidence|no stale write reached the receiver after it was crashed)`, r.stdout)
			} else {
				assert.Contains(t, r.stdout, "verdict     HELD")
			}
			m := crashes.FindStringSubmatch(r.stdout)
			require.NotNil(t, m, r.stdout)
			n, _ := strconv.Atoi(m[1])
			assert.Positive(t, n, "the server was crashed: %s", r.stdout)
			assert.FileExists(t, dir+"/s/latest/receiver.log")
			assert.DirExists(t, dir+"/s/latest/"+natstarget.StoreDir)
		})
	}
	t.Run("verify", func(t *testing.T) {
		t.Parallel()
		r := fencecheck(t, schema.TempDir(t), "verify", "--target", "nats", "--store", "s")
		assert.Equal(t, exitHeld, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Contains(t, r.stdout, "| restart-durability | 7 accepted; after SIGKILL and restart: read \"before\"@7, 6 rejected, 8 accepted | 7 accepted; after restart read \"before\"@7, 6 rejected, 8 accepted | pass |")
	})
}

// TestRunNATSErrors covers what must fail fast with exit 3, naming the
// target without its password.
func TestRunNATSErrors(t *testing.T) {
	t.Parallel()
	url := natsURL(t)
	runRefused(t, []refusal{
		{"unreachable", []string{"--target", "nats://bob:s3cretpw@127.0.0.1:1"}, "open nats://bob:xxxxx@127.0.0.1:1"},
		{"unknown mode", []string{"--target", url, "--nats-mode", "careful"}, `unknown nats-mode "careful"`},
		{"NATS flags on a memory target", []string{"--target", "memory://fenced", "--nats-mode", "atomic"}, "--nats-mode need a NATS target"},
		{"kill on the shared server", []string{"--target", url, "--nemesis", "kill"}, "kill acts on the receiver process"},
		{"TCP faults on the private server", []string{"--target", "nats", "--nemesis", "net-reset"}, "private NATS server's port is chosen when it starts"},
		{"bad sync", []string{"--target", "nats://embedded?sync=never"}, "the only setting is sync=always"},
	})
}

// TestNATSLeases: tokens from NATS JetStream KV, on the shared server and
// on the private one under issuer-kill, hold against the reference
// receiver; verify-issuer's table passes every scenario that applies,
// grant-after-restart included on the private server, under both fsync
// settings.
func TestNATSLeases(t *testing.T) {
	t.Parallel()
	url := natsURL(t)
	for _, tc := range []struct{ leases, nemesis string }{
		{url, "pause,delay"},
		{"nats", "pause,delay,issuer-kill"},
	} {
		t.Run("run "+tc.leases, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), "run", "--target", "memory://fenced", "--leases", tc.leases, "--ops", "300",
				"--op-timeout", "2s", "--lease-ttl", "100ms", "--nemesis", tc.nemesis, "--seed", "1", "--store", "s", "--no-report")
			assert.Equal(t, exitHeld, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "verdict     HELD")
		})
	}
	for _, tc := range []struct {
		leases string
		want   []string
	}{
		{url, []string{"verify-issuer " + url, "5 passed, 0 failed, 0 info, 8 skipped"}},
		{"nats", []string{"verify-issuer private nats-server (default fsync, every 2m)",
			"after nats-server was SIGKILLed and started again | pass |", "6 passed, 0 failed, 0 info, 7 skipped"}},
		{"nats?sync=always", []string{"verify-issuer private nats-server (sync_interval: always)",
			"after nats-server was SIGKILLed and started again | pass |", "6 passed, 0 failed, 0 info, 7 skipped"}},
	} {
		t.Run("verify-issuer "+tc.leases, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), "verify-issuer", "--leases", tc.leases, "--lease-ttl", "100ms", "--store", "s")
			assert.Equal(t, exitHeld, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			for _, w := range tc.want {
				assert.Contains(t, r.stdout, w)
			}
		})
	}
}
