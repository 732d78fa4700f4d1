package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// redisSpec returns the Redis server's spec, or skips the test with the
// reason (see testdb).
func redisSpec(t *testing.T) string {
	t.Helper()
	spec, skip := testdb.Redis().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	return spec
}

// redisScript is the absolute path of one of redistarget's test scripts.
func redisScript(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "targets", "redistarget", "testdata", name))
	require.NoError(t, err)
	return p
}

// redisRunArgs are a run against Redis whose faults act from the start
// (pause and delay opened at 0s) and whose length is a number of
// operations, so that what it exercises does not depend on the machine's
// speed: the delay fault holds a write in check-then-set's window until
// a newer token was accepted, whenever that is.
func redisRunArgs(spec string, extra ...string) []string {
	return append([]string{"run", "--target", spec, "--workers", "8", "--ops", "600", "--op-timeout", "2s",
		"--lease-ttl", "30ms", "--nemesis", "pause,delay", "--nemesis-script", "0s:+pause,0s:+delay",
		"--seed", "1", "--store", "s", "--no-report"}, extra...)
}

// resourcePrefix finds, in a run's output, the prefix of the resource
// names the run drew ("named dmk1fw-r0 …").
var resourcePrefix = regexp.MustCompile(`named (\S+)-r0 `)

// assertNoKeysLeft checks that no key of the run's resources is left on
// the server: Teardown removed them.
func assertNoKeysLeft(t *testing.T, spec, stdout string) {
	t.Helper()
	m := resourcePrefix.FindStringSubmatch(stdout)
	require.NotNil(t, m, "no resource names in the output:\n%s", stdout)
	o, err := redis.ParseURL(spec)
	require.NoError(t, err)
	c := redis.NewClient(o)
	defer c.Close()
	left, err := c.Keys(context.Background(), "fencecheck:target:*:"+m[1]+"-*").Result()
	require.NoError(t, err)
	assert.Empty(t, left, "the run's keys are removed at its end")
}

// TestRunRedisModes: against a real Redis, the atomic script and
// WATCH/MULTI/EXEC hold (exit 0), check-then-set is found (exit 1), and
// the stored history agrees; no key of the run is left behind on the
// user's server.
func TestRunRedisModes(t *testing.T) {
	t.Parallel()
	spec := redisSpec(t)
	for _, tc := range []struct {
		mode, verdict string
		code          int
	}{{"atomic", "HELD", 0}, {"watch", "HELD", 0}, {"check-then-set", "VIOLATED", 1}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, redisRunArgs(spec, "--redis-mode", tc.mode)...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "verdict     "+tc.verdict)
			assert.Contains(t, r.stdout, "("+tc.mode+")")
			assertNoKeysLeft(t, spec, r.stdout)
			again := fencecheck(t, dir, "check", "s/latest/history.jsonl")
			assert.Equal(t, tc.code, again.code, "the stored history agrees: %s", again.stdout)
		})
	}
}

// TestRunRedisScript: the user's own script, as a file: a correct one
// holds, one without a comparison is found.
func TestRunRedisScript(t *testing.T) {
	t.Parallel()
	spec := redisSpec(t)
	for _, tc := range []struct {
		script, read string
		code         int
		verdict      string
	}{
		{"fenced.lua", "", 0, "HELD"},
		{"fenced.lua", "read.lua", 0, "HELD"},
		{"unguarded.lua", "", 1, "VIOLATED"},
	} {
		t.Run(tc.script+" "+tc.read, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			args := redisRunArgs(spec, "--redis-script", redisScript(t, tc.script))
			if tc.read != "" {
				args = append(args, "--redis-read-script", redisScript(t, tc.read))
			}
			r := fencecheck(t, dir, args...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "verdict     "+tc.verdict)
			assert.Contains(t, r.stdout, "(own script)")
			assertNoKeysLeft(t, spec, r.stdout)
		})
	}
}

// TestVerifyRedis: verify passes the built-in atomic script and watch,
// tokens up to 2^64-1 included, and fails check-then-set (the race) and
// a user's script that compares with tonumber (above 2^53).
func TestVerifyRedis(t *testing.T) {
	t.Parallel()
	spec := redisSpec(t)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"atomic", nil, 0, "| digit-boundaries | 9→10, 99→100, 999→1000, 2^31-1→2^31, 2^32-1→2^32, 2^53→2^53+1, 2^63-1→2^63, 2^64-2→2^64-1: higher accepted, lower again rejected | all 8 pairs ordered as integers | pass |"},
		{"watch", []string{"--redis-mode", "watch"}, 0, "| check-then-set-race | in each of 5 rounds token 9 accepted and stored, whatever the order | 5 rounds: token 9 stored every time | pass |"},
		{"check-then-set", []string{"--redis-mode", "check-then-set"}, 1, "| check-then-set-race |"},
		{"tonumber.lua", []string{"--redis-script", redisScript(t, "tonumber.lua")}, 1, "9007199254740992→9007199254740993: accepted, rejected"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), append([]string{"verify", "--target", spec, "--store", "s"}, tc.args...)...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.want)
			// The atomic script compares decimal strings exactly: its
			// domain is every uint64, and verify says so.
			assert.Contains(t, r.stdout, "token domain 1 … 2^64-1 (18446744073709551615): no larger token is sent")
		})
	}
}

// TestRunRedisErrors covers what must fail fast with exit 3, naming the
// target without its password.
func TestRunRedisErrors(t *testing.T) {
	t.Parallel()
	spec := redisSpec(t)
	o, err := redis.ParseURL(spec)
	require.NoError(t, err)
	wrongPassword := "redis://nobody-" + filepath.Base(schema.TempDir(t)) + ":s3cretpw@" + o.Addr + "/0"
	bad := filepath.Join(schema.TempDir(t), "bad.lua")
	require.NoError(t, os.WriteFile(bad, []byte("if then"), 0o600))
	cases := []refusal{
		{"unreachable", []string{"--target", "redis://bob:s3cretpw@127.0.0.1:1/0"}, "open redis://bob:xxxxx@127.0.0.1:1/0: dial tcp 127.0.0.1:1"},
		{"wrong password", []string{"--target", wrongPassword}, ":xxxxx@"},
		{"unknown mode", []string{"--target", spec, "--redis-mode", "careful"}, `unknown redis-mode "careful"`},
		{"mode and script", []string{"--target", spec, "--redis-mode", "atomic", "--redis-script", redisScript(t, "fenced.lua")}, "exclude each other"},
		{"missing script file", []string{"--target", spec, "--redis-script", "/nonexistent/fenced.lua"}, "--redis-script: open /nonexistent/fenced.lua"},
		{"script that does not compile", []string{"--target", spec, "--redis-script", bad}, "load the write script into"},
		{"Redis flags on a memory target", []string{"--target", "memory://fenced", "--redis-mode", "atomic"}, "--redis-* flags need a Redis target"},
		{"Redis flags on a SQL target", []string{"--target", "sqlite:///tmp/never-opened.db", "--redis-script", "x.lua"}, "--redis-* flags need a Redis target"},
		{"SQL flags on a Redis target", []string{"--target", spec, "--sql-mode", "atomic"}, "--sql-* flags need a SQL target"},
	}
	runRefused(t, cases)
}

// TestRedisNeverPrintsThePassword runs run and verify against Redis with
// a password in the spec (the default user without a password takes any)
// and looks for it everywhere they write.
func TestRedisNeverPrintsThePassword(t *testing.T) {
	t.Parallel()
	spec := redisSpec(t)
	withPassword := strings.Replace(spec, "redis://", "redis://default:s3cretpw@", 1)
	if strings.Contains(spec, "@") {
		t.Skipf("%s %q has user information already", testdb.Redis().Env, spec)
	}
	dir := schema.TempDir(t)
	run := fencecheck(t, dir, "run", "--target", withPassword, "--ops", "200", "--op-timeout", "2s", "--lease-ttl", "30ms",
		"--nemesis", "pause,delay", "--seed", "1", "--store", "s", "--json")
	require.Equal(t, 0, run.code, run.stderr)
	assert.Contains(t, run.stdout, "default:xxxxx@")
	ver := fencecheck(t, dir, "verify", "--target", withPassword, "--store", "s")
	require.Equal(t, 0, ver.code, ver.stderr)
	for _, out := range []string{run.stdout, run.stderr, ver.stdout, ver.stderr} {
		assert.NotContains(t, out, "s3cretpw")
	}
	assertNowhereInStore(t, filepath.Join(dir, "s"), "s3cretpw")
}
