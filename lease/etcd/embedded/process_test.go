package embedded

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/procfs"
)

// helperEnv makes the test binary a member process (TestHelperMember), as
// os/exec's own tests make it a helper process.
const helperEnv = "FENCECHECK_ETCD_MEMBER_HELPER"

// TestHelperMember is not a test: the process cluster's tests run the
// test binary as a member, with the configuration file as its last
// argument.
func TestHelperMember(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := ServeMember(ctx, os.Args[len(os.Args)-1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// helperCommand runs a member in the test binary.
func helperCommand(t *testing.T) []string {
	t.Helper()
	env, err := exec.LookPath("env")
	require.NoError(t, err)
	return []string{env, helperEnv + "=1", os.Args[0], "-test.run=^TestHelperMember$", "--"}
}

// startProcesses starts a three-member cluster of member processes,
// stopped at the end of the test.
func startProcesses(t *testing.T, dir string) *Cluster {
	t.Helper()
	opts := DefaultOptions()
	opts.Command = helperCommand(t)
	c, err := Start(context.Background(), dir, opts)
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	return c
}

// pid is the process id of member i's current start.
func (c *Cluster) pid(i int) int {
	p := c.procs[i]
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.run.cmd.Process.Pid
}

// leaderOtherThan waits until a member other than not leads and returns
// it; the bound only ends a broken test.
func leaderOtherThan(t *testing.T, c *Cluster, not int) int {
	t.Helper()
	leader := -1
	require.Eventually(t, func() bool {
		leader = c.Leader(context.Background())
		return leader >= 0 && leader != not
	}, time.Minute, 20*time.Millisecond, "a leader other than member %d", not)
	return leader
}

// TestProcessClusterKillStartFreezeThaw: a cluster of member processes
// serves; killing its leader ends that process and another member leads,
// while the cluster keeps taking writes; the killed member starts again
// on its data and serves what was written while it was down; a frozen
// leader is stopped in the kernel and replaced, and serves again once
// thawed; Stop leaves no member process.
func TestProcessClusterKillStartFreezeThaw(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startProcesses(t, dir)
	assert.Equal(t, []string{"m0", "m1", "m2"}, c.Members())
	ctx := context.Background()
	_, err := client(t, c.Endpoints).Put(ctx, "before", "1")
	require.NoError(t, err)

	leader := leaderOtherThan(t, c, -1)
	pid := c.pid(leader)
	require.NoError(t, c.Kill(leader))
	assert.True(t, procfs.Gone(pid), "the killed member's process is gone")
	next := leaderOtherThan(t, c, leader)
	t.Logf("killed leader m%d; m%d leads", leader, next)
	_, err = client(t, c.Endpoints).Put(ctx, "while-down", "2")
	require.NoError(t, err, "two of three members keep a quorum")
	assert.ErrorContains(t, c.Kill(leader), "not running")

	require.NoError(t, c.Start(ctx, leader))
	assert.NotEqual(t, pid, c.pid(leader), "a new process")
	got, err := client(t, c.Endpoints[leader:leader+1]).Get(ctx, "while-down")
	require.NoError(t, err)
	require.Len(t, got.Kvs, 1, "the restarted member has caught up")
	assert.ErrorContains(t, c.Start(ctx, leader), "already running")

	frozen := leaderOtherThan(t, c, -1)
	require.NoError(t, c.Freeze(frozen))
	waitState(t, c.pid(frozen), true) // the kernel stops it soon after the signal
	t.Logf("froze leader m%d; m%d leads", frozen, leaderOtherThan(t, c, frozen))
	require.NoError(t, c.Thaw(frozen))
	waitState(t, c.pid(frozen), false)
	_, err = client(t, c.Endpoints[frozen:frozen+1]).Get(ctx, "before")
	require.NoError(t, err, "the thawed member serves")

	pids := []int{c.pid(0), c.pid(1), c.pid(2)}
	c.Stop()
	for _, pid := range pids {
		assert.True(t, procfs.Gone(pid), "pid %d outlived Stop", pid)
	}
	assert.NoError(t, c.Err(), "no member exited on its own")
	for _, m := range c.Members() {
		assert.FileExists(t, filepath.Join(dir, m, OutputFile))
		assert.FileExists(t, filepath.Join(dir, m, "etcd.log"))
	}
	require.NoError(t, c.RemoveData())
	assert.NoDirExists(t, filepath.Join(dir, "m0", "data"))
}

// TestProcessMemberExitingOnItsOwn: a member whose process ends without
// fencecheck's SIGKILL is reported, with the paths of its logs, by Err
// and by the next action on it; the others go on serving.
func TestProcessMemberExitingOnItsOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := startProcesses(t, dir)
	p := c.procs[1]
	p.mu.Lock()
	exited := p.run.exited
	p.mu.Unlock()
	require.NoError(t, syscall.Kill(c.pid(1), syscall.SIGTERM)) // not fencecheck's doing
	<-exited
	err := c.Err()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "etcd member m1")
	assert.Contains(t, err.Error(), "exited on its own while it served")
	assert.Contains(t, err.Error(), filepath.Join(dir, "m1", OutputFile))
	assert.Contains(t, err.Error(), filepath.Join(dir, "m1", "etcd.log"))
	for _, action := range []func() error{func() error { return c.Kill(1) }, func() error { return c.Freeze(1) }} {
		assert.ErrorContains(t, action(), "exited on its own")
	}
	_, err = client(t, c.Endpoints[:1]).Put(context.Background(), "k", "v")
	assert.NoError(t, err)
}

// TestProcessClusterThatDoesNotStart: members that exit before they are
// ready, that are not ready in time, or whose start is cancelled, make
// Start fail with the reason and the logs' paths, and leave no process
// behind.
func TestProcessClusterThatDoesNotStart(t *testing.T) {
	t.Parallel()
	// Each member writes its pid, then sleeps (or exits) instead of serving.
	script := func(then string) []string {
		return []string{"/bin/sh", "-c", `echo $$ > "$(dirname "$1")/pid"; ` + then, "sh"}
	}
	cases := []struct {
		name    string
		command []string
		timeout time.Duration
		cancel  bool
		want    []string
	}{
		{"exits", script("exit 3"), time.Minute, false, []string{"exited on its own before it was ready (exit status 3)", OutputFile, "etcd.log"}},
		{"never ready", script("exec sleep 300"), time.Second, false, []string{"was not ready within 1s", OutputFile}},
		{"cancelled", script("exec sleep 300"), time.Minute, true, []string{"context canceled"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				go func() {
					// Cancel once every member process has started.
					for !allExist(dir) {
						time.Sleep(5 * time.Millisecond)
					}
					cancel()
				}()
			}
			_, err := Start(ctx, dir, Options{Members: 3, ReadyTimeout: tc.timeout, Command: tc.command})
			require.Error(t, err)
			for _, want := range tc.want {
				assert.Contains(t, err.Error(), want)
			}
			for i := range 3 {
				data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("m%d", i), "pid"))
				if err != nil || len(data) == 0 {
					continue // killed before its shell wrote its pid
				}
				pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
				require.NoError(t, err)
				assert.True(t, procfs.Gone(pid), "member m%d (pid %d) left running", i, pid)
			}
		})
	}
}

// waitState waits until pid is stopped (state T) or not; the bound only
// ends a broken test.
func waitState(t *testing.T, pid int, stopped bool) {
	t.Helper()
	require.Eventually(t, func() bool {
		st, err := procfs.ReadStat(pid)
		return err == nil && (st.State == 'T') == stopped
	}, time.Minute, 5*time.Millisecond, "pid %d stopped=%v", pid, stopped)
}

func allExist(dir string) bool {
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("m%d", i), "pid")); err != nil {
			return false
		}
	}
	return true
}

// TestInProcessMembersCannotBeKilled: without Options.Command the members
// run in this process: the actions that need a process say so, and
// Leader still answers.
func TestInProcessMembersCannotBeKilled(t *testing.T) {
	t.Parallel()
	c, err := Start(context.Background(), t.TempDir(), Options{Members: 1, ReadyTimeout: 30 * time.Second})
	require.NoError(t, err)
	t.Cleanup(c.Stop)
	assert.ErrorContains(t, c.Kill(0), "set Options.Command")
	assert.ErrorContains(t, c.Freeze(0), "set Options.Command")
	assert.ErrorContains(t, c.Kill(3), "no member 3")
	assert.Equal(t, 0, leaderOtherThan(t, c, -1))
}

// TestServeMemberRefusesABadConfiguration: a configuration file that is
// missing, not JSON, or lacks a field is an error naming the file.
func TestServeMemberRefusesABadConfiguration(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "missing.json"):   "no such file",
		write("bad.json", "{"):               "bad.json: unexpected end of JSON input",
		write("empty.json", `{"name":"m0"}`): "empty.json: name, data_dir, peer_url, client_url and initial_cluster are required",
	} {
		assert.ErrorContains(t, ServeMember(context.Background(), path), want)
	}
}
