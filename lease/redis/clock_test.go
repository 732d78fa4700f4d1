package redislease_test

import (
	"context"
	"io"
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

// jumpingIssuer is a private redis-server whose clock can jump, or a
// skip saying what is missing.
func jumpingIssuer(t *testing.T) *redislease.PrivateIssuer {
	t.Helper()
	iss := redislease.NewPrivateIssuer(redislease.DefaultSettings(), lease.DefaultPollOptions())
	if err := iss.ClockJumps(); err != nil {
		t.Skipf("no private redis-server whose clock can jump here: %v", err)
	}
	return iss
}

// TestPrivateRedisClockJumpEndsLeases: a lease on a private redis-server
// whose clock jumps forward past the lease's TTL is gone from the server
// at once, while its holder was never told, and the resource is granted
// again with a higher token: two holders of one lease, and the token
// still tells them apart. Without ClockJumps the server's service is no
// lease.ClockJumper.
func TestPrivateRedisClockJumpEndsLeases(t *testing.T) {
	t.Parallel()
	iss := jumpingIssuer(t)
	ctx := context.Background()
	rt := sched.NewReal()
	life, end := context.WithCancel(ctx)
	defer end()
	env := lease.Env{Life: life, Runtime: rt, Recorder: histories.NewRecorder(io.Discard, histories.RecorderOptions{Clock: rt, Retain: true}),
		TTL: time.Minute, Dir: schema.TempDir(t), ClockJumps: true}
	svc, err := iss.Open(ctx, env)
	require.NoError(t, err)
	defer func() { assert.NoError(t, svc.(io.Closer).Close()) }()
	jumper, ok := svc.(lease.ClockJumper)
	require.True(t, ok, "%T cannot jump its clock", svc)
	_, ok = svc.(lease.Servers)
	require.True(t, ok, "a server whose clock jumps is still one the issuer faults act on")

	older, err := svc.Acquire(ctx, "r", 1)
	require.NoError(t, err)
	checker := svc.(lease.HolderChecker)
	held, err := checker.Held(ctx, older)
	require.NoError(t, err)
	require.True(t, held, "a minute's lease is held before the jump")

	require.NoError(t, jumper.JumpClock(ctx, 2*time.Minute))
	held, err = checker.Held(ctx, older)
	require.NoError(t, err)
	assert.False(t, held, "the jump ended the minute's lease on the server")
	acquireCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	newer, err := svc.Acquire(acquireCtx, "r", 2)
	require.NoError(t, err, "the resource is free again on the server")
	assert.Greater(t, newer.Token, older.Token, "the newer holder's token is higher: fencing tells them apart")
	require.Error(t, jumper.JumpClock(ctx, 0), "a jump forward is positive")

	plain, err := iss.Open(ctx, lease.Env{Life: life, Runtime: rt, Recorder: env.Recorder, TTL: time.Minute, Dir: schema.TempDir(t)})
	require.NoError(t, err)
	defer func() { assert.NoError(t, plain.(io.Closer).Close()) }()
	_, ok = plain.(lease.ClockJumper)
	assert.False(t, ok, "a server started without ClockJumps runs on the machine's clock")
}
