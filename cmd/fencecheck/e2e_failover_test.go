package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestIssuerFailoverRuns: issuer-failover on a private redis-server with
// an asynchronous replica. The replica falls behind as the fault phase
// begins, and once the primary issued three more tokens it is promoted in
// the primary's place: it hands those tokens out again, and the run is
// violated by the issuer, the output quoting the repeated token and the
// failover. With grants that wait for the replica (wait=1) the tokens
// issued while it was behind are refused, not handed out, and the run
// holds; the fault's end event says so.
func TestIssuerFailoverRuns(t *testing.T) {
	t.Parallel()
	needPrivateServer(t, "redis-server")
	cases := []struct {
		leases string
		code   int
		want   []string
	}{
		{"redis?replicas=1", 1, []string{
			"verdict     VIOLATED: the token issuer, not the receiver: the issuer handed token ",
			" to two workers (worker ",
			"after a leader change: issuer-failover: the leader is now redis-server r1: redis-server r0 SIGKILLed and redis-server r1 promoted in its place",
			"were handed out, and redis-server r1 never received them"}},
		{"redis?replicas=1&wait=1", 0, []string{
			"verdict     HELD",
			"redis-server r0 SIGKILLed, redis-server r1 promoted (REPLICAOF NO ONE) and serves, redis-server r0 back as its replica",
			"were refused, not handed out: no replica acknowledged them"}},
	}
	for _, c := range cases {
		t.Run(c.leases, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			// Bounded by its operations: the failover comes on the
			// primary's third token since the replica fell behind, not
			// after a time, and the workers wait at their pause point
			// while it is under way, so grants follow it. pause and delay
			// act from the start.
			r := fencecheck(t, dir, "run", "--store", "s", "--target", "memory://fenced", "--leases", c.leases,
				"--nemesis", "pause,delay,issuer-failover", "--nemesis-script", "0s:+pause,0s:+delay", "--ops", "120", "--no-progress")
			require.Equal(t, c.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			if i := strings.Index(r.stdout, "verdict "); i >= 0 {
				t.Logf("%s: exit %d; %s", c.leases, r.code, strings.SplitN(r.stdout[i:], "\n", 2)[0])
			}
			history, err := os.ReadFile(filepath.Join(dir, "s", "latest", "history.jsonl"))
			require.NoError(t, err)
			for _, w := range c.want {
				assert.Contains(t, r.stdout+string(history), w)
			}
			assert.Contains(t, r.stdout, "1 issuer leader changes")
			assert.Regexp(t, `[1-9][0-9]* lease grants after a server the issuer faults took down came back`, r.stdout)
			for _, id := range []string{"r0", "r1"} {
				assert.FileExists(t, filepath.Join(dir, "s", "latest", "redis", id, "redis.log"))
				assert.NoDirExists(t, filepath.Join(dir, "s", "latest", "redis", id, "data"), "the servers' data is deleted")
			}
		})
	}
}

// TestIssuerFailoverNeedsAReplica: issuer-failover on an issuer without a
// replica is refused, naming what it needs: before the run starts where
// the issuer has no servers at all, once it is open where it has servers
// but no replica.
func TestIssuerFailoverNeedsAReplica(t *testing.T) {
	t.Parallel()
	needPrivateServer(t, "redis-server")
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--store", "s", "--target", "memory://fenced", "--leases", "redis", "--nemesis", "pause,issuer-failover", "--no-progress")
	assert.NotEqual(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "issuer-failover needs an issuer that can hold its replica behind, count the tokens its primary issues meanwhile and fail over (today only a private redis-server with replicas=1)")
	r = fencecheck(t, dir, "run", "--store", "s2", "--target", "memory://fenced", "--leases", "local", "--nemesis", "pause,issuer-failover")
	assert.Equal(t, 3, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "nemesis: issuer-failover needs an issuer fencecheck started itself")
}

// TestVerifyIssuerReplicaPromotion: verify-issuer's grant-after-promotion
// on a private redis-server with a replica holds the replica behind while
// 40 grants are asked, then promotes it: with asynchronous replication
// the row fails, naming the token granted twice; with grants that wait
// for the replica none is acknowledged while it is held, and the row
// passes.
func TestVerifyIssuerReplicaPromotion(t *testing.T) {
	t.Parallel()
	needPrivateServer(t, "redis-server")
	cases := []struct {
		leases string
		want   []string
	}{
		{"redis?replicas=1", []string{"| token 6 granted twice (grants 6 and 46): tokens 1 to 5, 6 to 45 while the replica was held, " +
			"then 6 to 10 after the failover (redis-server r0 SIGKILLed, redis-server r1 promoted (REPLICAOF NO ONE)", "| FAIL |"}},
		{"redis?replicas=1&wait=1", []string{"| tokens 1 to 5, none acknowledged while the replica was held, then grant 1 not within ",
			"then 6 to 10 after the failover (redis-server r0 SIGKILLed, redis-server r1 promoted (REPLICAOF NO ONE)", "| pass |"}},
	}
	for _, c := range cases {
		t.Run(c.leases, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "verify-issuer", "--leases", c.leases, "--store", "s")
			// grant-after-restart fails on both: the primary restarts
			// without persistence, and its replica resynchronizes from it.
			require.Equal(t, 1, r.code, r.stdout+r.stderr)
			var row string
			for line := range strings.SplitSeq(r.stdout, "\n") {
				if strings.HasPrefix(line, "| grant-after-promotion |") {
					row = line
				}
			}
			t.Logf("%s: %s", c.leases, row)
			for _, w := range c.want {
				assert.Contains(t, row, w)
			}
		})
	}
}
