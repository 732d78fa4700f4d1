package redislease_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/lease"
	redislease "github.com/fencecheck/fencecheck/lease/redis"
	"github.com/fencecheck/fencecheck/sched"
)

// TestReplicatedFailover: a private primary with an asynchronous replica
// whose replication is held while the primary hands out tokens, then
// promoted in its place, grants those tokens again; with grants that
// wait for the replica, the tokens issued while it was held are refused,
// never handed out, and the promoted replica grants above every token
// that was.
func TestReplicatedFailover(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath(redislease.ServerName); err != nil {
		t.Skipf("%s is not installed (%v): the private issuer cannot start", redislease.ServerName, err)
	}
	for _, tc := range []struct {
		query   string
		repeats bool
	}{
		{"replicas=1", true},
		{"replicas=1&wait=1", false},
	} {
		t.Run(tc.query, func(t *testing.T) {
			t.Parallel()
			settings, err := redislease.ParseSettings(tc.query)
			require.NoError(t, err)
			ctx := context.Background()
			rt := sched.NewReal()
			rec := histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt, Retain: true})
			poll := lease.DefaultPollOptions()
			poll.RetryFor = 0 // a refused grant fails at once
			iss := redislease.NewPrivateIssuer(settings, poll)
			assert.True(t, iss.HasServers())
			dir := schema.TempDir(t)
			opened, err := iss.Open(ctx, lease.Env{Life: ctx, Runtime: rt, Recorder: rec, TTL: time.Second, Dir: dir})
			require.NoError(t, err)
			defer func() { assert.NoError(t, opened.(io.Closer).Close()) }()
			svc := opened.(*redislease.Replicated)
			assert.Equal(t, []string{"redis-server r0", "redis-server r1"}, svc.Servers())
			assert.Equal(t, 0, svc.Leader(ctx))

			// A lease released just before the detach may not have
			// reached the replica either: the grant after the failover
			// waits for its TTL, a second.
			grant := func() (uint64, error) {
				l, err := svc.Acquire(ctx, "r", 0)
				if err == nil {
					svc.Release(l)
				}
				return l.Token, err
			}
			var handed []uint64
			for range 3 {
				tok, err := grant()
				require.NoError(t, err)
				handed = append(handed, tok)
			}
			held, err := svc.HoldReplica(ctx)
			require.NoError(t, err)
			assert.Equal(t, "replication to redis-server r1 (the replica) held: it receives none of redis-server r0's writes", held)
			issued := make(chan struct{})
			svc.AfterIssued(3, func() { close(issued) })
			var refused []error
			for range 3 {
				tok, err := grant()
				if err != nil {
					refused = append(refused, err)
					continue
				}
				handed = append(handed, tok)
			}
			<-issued // the third token issued since the detach
			said, err := svc.Failover(ctx)
			require.NoError(t, err)
			assert.Equal(t, 1, svc.Leader(ctx))
			after, err := grant()
			if err != nil {
				for _, id := range []string{"r0", "r1"} {
					b, _ := os.ReadFile(filepath.Join(dir, "redis", id, "redis.log"))
					t.Logf("%s:\n%s", id, b)
				}
			}
			require.NoError(t, err)
			t.Logf("%s: tokens %v handed out, %d refused while the replica was held; %d after the failover: %s",
				iss.Name(), handed, len(refused), after, said)
			assert.Contains(t, said, "redis-server r0 SIGKILLed, redis-server r1 promoted (REPLICAOF NO ONE) and serves, redis-server r0 back as its replica; ")
			if tc.repeats {
				assert.Empty(t, refused)
				assert.Contains(t, said, "the 3 tokens redis-server r0 issued while redis-server r1 was behind were handed out")
				assert.Contains(t, handed, after, "the promoted replica grants a token handed out before")
				return
			}
			require.Len(t, refused, 3)
			assert.Contains(t, refused[0].Error(), "refused, not handed out")
			assert.Contains(t, said, "the 3 tokens redis-server r0 issued while redis-server r1 was behind were refused, not handed out")
			assert.Greater(t, after, handed[len(handed)-1], "every token handed out reached the replica")
		})
	}
}
