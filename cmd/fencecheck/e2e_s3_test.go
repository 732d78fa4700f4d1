package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/minio"
	"github.com/fencecheck/fencecheck/targets/s3target"
)

// s3Modes are the S3 target's built-in modes with the exit code a run
// and verify must end with: the correct patterns hold, the traps are
// found.
var s3Modes = []struct {
	mode, verdict string
	code          int
}{{"cas", "HELD", 0}, {"epoch-keys", "HELD", 0}, {"etag-only", "VIOLATED", 1}, {"unconditional", "VIOLATED", 1}}

// s3RunArgs are a run whose faults act from the start and whose length
// is a number of operations (see redisRunArgs): the delay fault holds an
// old owner's write in the window until a newer token was accepted,
// whenever that is.
func s3RunArgs(spec, mode string, extra ...string) []string {
	return append([]string{"run", "--target", spec, "--s3-mode", mode, "--workers", "8", "--ops", "400", "--op-timeout", "2s",
		"--lease-ttl", "30ms", "--nemesis", "pause,delay", "--nemesis-script", "0s:+pause,0s:+delay",
		"--seed", "1", "--store", "s", "--no-report"}, extra...)
}

// TestRunS3Embedded: on the embedded store, with no setup, cas and
// epoch-keys hold (exit 0) and the ETag-only compare-and-swap and the
// plain PUT are found (exit 1), a stale token accepted; the stored
// history agrees.
func TestRunS3Embedded(t *testing.T) {
	t.Parallel()
	for _, tc := range s3Modes {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, s3RunArgs("s3://embedded/fc", tc.mode)...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "verdict     "+tc.verdict)
			assert.Contains(t, r.stdout, "target      s3://embedded/fc ("+tc.mode+")")
			if tc.code == 1 {
				assert.Regexp(t, `stale writes \(\d+ rejected, [1-9]\d* accepted`, r.stdout, "an old owner's token was accepted")
			}
			again := fencecheck(t, dir, "check", "s/latest/history.jsonl")
			assert.Equal(t, tc.code, again.code, "the stored history agrees: %s", again.stdout)
		})
	}
}

// TestRunS3TCPFaults: the TCP proxy's faults act on the connections to
// the embedded store as to any receiver: cas still holds, with the reset
// writes recorded as unknown outcomes.
func TestRunS3TCPFaults(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--target", "s3://embedded/fc", "--workers", "8", "--ops", "400", "--op-timeout", "2s",
		"--lease-ttl", "30ms", "--seed", "1", "--nemesis", "pause,delay,net-reset,net-latency",
		"--nemesis-script", "0s:+pause,0s:+delay,0s:+net-reset,0s:+net-latency", "--store", "s", "--no-report")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "verdict     HELD")
	assert.Regexp(t, `net-reset [1-9]`, r.stdout, "a reset happened")
}

// TestVerifyS3: verify passes cas and epoch-keys, tokens up to 2^64-1
// included, and fails the two traps.
func TestVerifyS3(t *testing.T) {
	t.Parallel()
	for _, tc := range s3Modes {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), "verify", "--target", "s3://embedded/b", "--s3-mode", tc.mode, "--store", "s")
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "token domain 1 … 2^64-1 (18446744073709551615): no larger token is sent")
			if tc.code == 0 {
				assert.Contains(t, r.stdout, "| check-then-set-race | in each of 5 rounds token 9 accepted and stored, whatever the order | 5 rounds: token 9 stored every time | pass |")
			} else {
				assert.Contains(t, r.stdout, `| stale-after-newer | 42 accepted, 41 rejected, read "new-result"@42 | 42 accepted, 41 accepted, read "old-result"@41 | FAIL |`)
			}
		})
	}
}

// TestRunS3Errors covers what must fail fast with exit 3.
func TestRunS3Errors(t *testing.T) {
	t.Parallel()
	runRefused(t, []refusal{
		{"unknown mode", []string{"--target", "s3://embedded/fc", "--s3-mode", "careful"}, `--s3-mode: unknown s3-mode "careful"`},
		{"S3 flags on a Redis target", []string{"--target", "redis://127.0.0.1:6379/0", "--s3-mode", "cas"}, "--s3-mode need an S3 target"},
		{"credentials in the spec", []string{"--target", "s3://AKIA:s3cretpw@127.0.0.1:9000/bkt"}, "credentials do not go in the spec"},
		{"bad bucket", []string{"--target", "s3://127.0.0.1:9000/No_Such"}, `"No_Such" is not a bucket name`},
		{"TCP faults over TLS", []string{"--target", "s3://127.0.0.1:9000/bkt?tls=true", "--nemesis", "net-reset"}, "reached over TLS"},
	})
}

// TestRunS3RealStore runs the four modes against a real S3 server:
// the store FENCECHECK_S3_ENDPOINT names, or a MinIO started from the
// minio binary on PATH (internal/testsupport/minio); it skips, saying
// why, without either. Each run creates a bucket of its own, and no
// bucket is left behind on the store afterwards.
func TestRunS3RealStore(t *testing.T) {
	t.Parallel()
	m, skip := minio.Store()
	if skip != "" {
		t.Skip(skip)
	}
	env := []string{"AWS_ACCESS_KEY_ID=" + m.AccessKeyID, "AWS_SECRET_ACCESS_KEY=" + m.SecretAccessKey}
	before := buckets(t, m)
	t.Run("modes", func(t *testing.T) {
		for _, tc := range s3Modes {
			t.Run(tc.mode, func(t *testing.T) {
				t.Parallel()
				dir := schema.TempDir(t)
				r := fencecheckEnv(t, dir, env, s3RunArgs("s3://"+m.Addr, tc.mode)...)
				t.Logf("%s against %s:\n%s", tc.mode, m.Addr, r.stdout)
				assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
				assert.Contains(t, r.stdout, "verdict     "+tc.verdict)
				assert.NotContains(t, r.stdout+r.stderr, m.SecretAccessKey)
			})
		}
	})
	assert.Equal(t, before, buckets(t, m), "the runs removed their buckets")
}

// buckets lists the store's buckets.
func buckets(t *testing.T, m minio.Server) []string {
	t.Helper()
	o := s3target.DefaultOptions()
	o.Credentials = &s3target.Credentials{AccessKeyID: m.AccessKeyID, SecretAccessKey: m.SecretAccessKey}
	tgt, err := s3target.Open(context.Background(), "s3://"+m.Addr, o)
	require.NoError(t, err)
	defer tgt.Close()
	out, err := tgt.Client().ListBuckets(context.Background(), &s3.ListBucketsInput{})
	require.NoError(t, err)
	var names []string
	for _, b := range out.Buckets {
		names = append(names, aws.ToString(b.Name))
	}
	slices.Sort(names)
	return names
}

// fencecheckEnv runs the binary as fencecheck does, with env added to
// its environment: the credentials of a real store.
func fencecheckEnv(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(fencecheckBinary, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{out.String(), errb.String(), code}
}
