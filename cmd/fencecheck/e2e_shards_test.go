package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// servedLeases is a running `fencecheck leases serve`.
type servedLeases struct {
	cmd       *exec.Cmd
	endpoints string // HOST:PORT,…
	info      string // its --listen-info file
	stderr    *bytes.Buffer
}

// serveLeases starts `fencecheck leases serve` and returns once it printed
// its endpoints line: no sleep, the line says the cluster serves.
func serveLeases(t *testing.T, dir string) *servedLeases {
	t.Helper()
	s := &servedLeases{info: filepath.Join(dir, "leases.info"), stderr: &bytes.Buffer{}}
	s.cmd = exec.Command(fencecheckBinary, "leases", "serve", "--dir", filepath.Join(dir, "etcd"), "--listen-info", s.info)
	out, err := s.cmd.StdoutPipe()
	require.NoError(t, err)
	s.cmd.Stderr = s.stderr
	require.NoError(t, s.cmd.Start())
	t.Cleanup(func() { s.stop(t) })
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		eps, ok := strings.CutPrefix(strings.TrimSpace(line), "endpoints ")
		require.True(t, ok, "first line %q; stderr:\n%s", line, s.stderr)
		s.endpoints = eps
	case <-time.After(2 * time.Minute): // a fail-safe, not a measurement
		t.Fatal("leases serve printed no endpoints")
	}
	return s
}

// stop sends SIGTERM to the served cluster's process, by its PID, and
// waits for it: a clean stop exits 0.
func (s *servedLeases) stop(t *testing.T) {
	t.Helper()
	if s.cmd.ProcessState != nil {
		return
	}
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	err := s.cmd.Wait()
	assert.NoError(t, err, "leases serve did not stop cleanly; stderr:\n%s", s.stderr)
}

// TestShardsShareOneIssuerAndReceiver is the scale-out of
// docs/scale-out.md on the local machine, as a user runs it: one `fencecheck leases serve` (an embedded etcd), one reference
// receiver, four `fencecheck run --shard i/4` processes at once sharing
// both, and one `fencecheck check` of the four histories: one verdict,
// HELD against the correct receiver and VIOLATED against one with the
// check-then-set bug.
func TestShardsShareOneIssuerAndReceiver(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	leases := serveLeases(t, dir)
	info, err := os.ReadFile(leases.info)
	require.NoError(t, err)
	assert.Equal(t, "endpoints "+leases.endpoints+"\n", string(info), "--listen-info holds the same line")
	assert.Len(t, strings.Split(leases.endpoints, ","), 3, "three members by default")

	for _, tc := range []struct {
		bug   string
		extra []string
		code  int
	}{
		{"none", nil, exitHeld},
		// The race needs a stale write to reach the receiver while a newer
		// one waits inside the window: the delay fault sends it when the
		// newer token is sent; a window wider than the default 5ms keeps
		// the two inside it on a loaded machine too.
		{"check-then-set", []string{"--window", "250ms"}, exitViolated},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			base := startReceiver(t, append([]string{"--bug", tc.bug}, tc.extra...)...)
			shards := runShards(t, dir, tc.bug, base, leases.endpoints)
			var paths []string
			anyViolated := false
			for i, r := range shards {
				require.Contains(t, []int{exitHeld, exitViolated, exitInconclusive}, r.code, "shard %d:\n%s\n%s", i, r.stdout, r.stderr)
				if tc.bug == "none" {
					assert.NotEqual(t, exitViolated, r.code, "shard %d against a correct receiver:\n%s", i, r.stdout)
				}
				anyViolated = anyViolated || r.code == exitViolated
				assert.Contains(t, reproduceOf(t, r.stdout), fmt.Sprintf("--shard %d/4", i))
				assert.Contains(t, r.stdout, fmt.Sprintf("of 16 resources as shard %d/4", i))
				paths = append(paths, filepath.Join(dir, tc.bug, fmt.Sprintf("shard-%d", i), "latest", "history.jsonl"))
			}
			c := fencecheck(t, dir, append([]string{"check"}, paths...)...)
			assert.Equal(t, tc.code, c.code, "stdout:\n%s\nstderr:\n%s", c.stdout, c.stderr)
			if anyViolated {
				assert.Equal(t, exitViolated, c.code, "a violation a shard found is found in the histories together")
			}
			assert.Contains(t, c.stdout, "histories      4 files, checked as one")
			assert.Contains(t, c.stdout, "resources      16, ")
			assert.Equal(t, 1, strings.Count(c.stdout, "\nverdict "), "one verdict:\n%s", c.stdout)
			assert.Empty(t, c.stderr)
		})
	}
	leases.stop(t)
	assert.NoFileExists(t, leases.info, "leases serve removes its --listen-info file when it stops")
	assert.Contains(t, leases.stderr.String(), "stopped")
}

// runShards runs the four shards of one job at once against the receiver
// at base and the etcd cluster at endpoints, each into its own store
// under dir/job, and returns what each printed. --ops bounds each run.
func runShards(t *testing.T, dir, job, base, endpoints string) []result {
	t.Helper()
	const n = 4
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, 2*n)
	for i := range n {
		cmds[i] = exec.Command(fencecheckBinary, "run", "--target", base, "--leases", "etcd://"+endpoints,
			"--shard", fmt.Sprintf("%d/%d", i, n), "--job", "e2e-"+job, "--resources", "16", "--ops", "200",
			"--op-timeout", "2s", "--seed", fmt.Sprint(i+1), "--no-progress",
			// pause and delay act from the start, not from random
			// windows: on a loaded machine the operations may be spent
			// before a window opens, and the race never happen.
			"--nemesis-script", "0s:+pause,0s:+delay",
			"--store", filepath.Join(dir, job, fmt.Sprintf("shard-%d", i)))
		cmds[i].Dir = dir
		outs[2*i], outs[2*i+1] = &bytes.Buffer{}, &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[2*i], outs[2*i+1]
		require.NoError(t, cmds[i].Start())
	}
	results := make([]result, n)
	for i, cmd := range cmds {
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			results[i].code = ee.ExitCode()
		} else {
			require.NoError(t, err)
		}
		results[i].stdout, results[i].stderr = outs[2*i].String(), outs[2*i+1].String()
	}
	return results
}

// TestShardFlags: --shard, --job and a shard's resources are checked
// before anything runs, each error naming its flag.
func TestShardFlags(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no shared names", []string{"--shard", "1/4"}, "--shard 1/4: needs --job ID or --resource-names"},
		{"out of range", []string{"--shard", "4/4", "--job", "j"}, "--shard: 4/4: the shard must be between 0 and 3"},
		{"negative", []string{"--shard", "-1/4", "--job", "j"}, "--shard: -1/4: the shard must be between 0 and 3"},
		{"no shards", []string{"--shard", "0/0", "--job", "j"}, "--shard: 0/0: the number of shards must be between 1"},
		{"not i/N", []string{"--shard", "2", "--job", "j"}, `--shard: "2" is not i/N`},
		{"a shard that owns nothing", []string{"--shard", "0/4", "--resource-names", "r0"}, "shard: 0/4 owns none of the 1 resources"},
		{"both namings", []string{"--shard", "0/4", "--job", "j", "--resource-names", "a,b"}, "--job: give --job or --resource-names, not both"},
		{"a job id that names nothing", []string{"--job", "a/b"}, `--job: job id "a/b" does not make resource names`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, append([]string{"run", "--target", "memory://fenced", "--store", "s"}, tc.args...)...)
			assert.Equal(t, exitError, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.NoDirExists(t, filepath.Join(dir, "s"), "nothing ran")
		})
	}
}

// TestLeasesFlags: leases without a command, with an unknown one, and
// serve with no member or in a directory that holds an earlier cluster's
// data are usage errors.
func TestLeasesFlags(t *testing.T) {
	t.Parallel()
	old := schema.TempDir(t)
	require.NoError(t, os.MkdirAll(filepath.Join(old, "m0", "data"), 0o700))
	cases := []struct{ name, args, want string }{
		{"no command", "leases", "leases: want a command: serve"},
		{"an unknown command", "leases member-of-nothing", `leases: unknown command "member-of-nothing" (want serve)`},
		{"no member", "leases serve --members 0", "--members: 0: need at least one"},
		{"members not a number", "leases serve --members two", `invalid argument "two" for "--members"`},
		{"an argument", "leases serve extra", "want no arguments"},
		{"an earlier cluster's data", "leases serve --dir " + old, "holds an earlier cluster's data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), strings.Fields(tc.args)...)
			assert.Equal(t, exitError, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, tc.want)
		})
	}
}
