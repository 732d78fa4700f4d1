package process

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
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

func alive(pid int) bool { return !procfs.Gone(pid) }

func alwaysReady(context.Context) error { return nil }

// currentPID is the pid of the child's running start.
func (c *Child) currentPID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.proc.pgid
}

// waitFor waits for ch, failing the test after a bound meant only to end
// a broken test, never to pace a working one.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestChildLifecycle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	c := NewChild("sleep 30", "", alwaysReady)
	c.SetLogDir(dir)
	ctx := context.Background()
	require.NoError(t, c.Start(ctx))
	first := c.currentPID()
	require.Error(t, c.Start(ctx), "already running")
	require.NoError(t, c.Freeze())
	require.NoError(t, c.Thaw())
	require.NoError(t, c.Restart(ctx))
	assert.False(t, alive(first), "the first process survived SIGKILL")
	second := c.currentPID()
	assert.NotEqual(t, first, second)
	require.NoError(t, c.Freeze())
	require.NoError(t, c.Stop(5*time.Second), "stop thaws a frozen child and ends it")
	assert.False(t, alive(second))
	assert.NoError(t, c.Err(), "exits fencecheck caused are not exits on its own")
	select {
	case <-c.Failed():
		t.Error("Failed closed without an exit on its own")
	default:
	}
	log, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(log), "--- fencecheck: start"))
	assert.NotContains(t, string(log), "exited on its own")
}

func TestChildThatIsNeverReady(t *testing.T) {
	t.Parallel()
	never := func(context.Context) error { return errors.New("connection refused") }
	c := NewChild("echo starting up; exit 4", "", never)
	c.SetLogDir(t.TempDir())
	err := c.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited on its own before it was ready (exit status 4)")
	assert.Contains(t, err.Error(), "starting up", "the error shows the end of its output")

	c = NewChild("sleep 30", "", nil)
	pid := make(chan int, 1)
	c.ready = func(context.Context) error {
		select {
		case pid <- c.currentPID():
		default:
		}
		return errors.New("connection refused")
	}
	c.StartTimeout = 100 * time.Millisecond
	err = c.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "was not ready within 100ms: connection refused")
	assert.False(t, alive(<-pid), "a child that was never ready is not left running")
	assert.NoError(t, c.Err(), "fencecheck gave up on it; it did not exit on its own")
	require.NoError(t, c.Stop(time.Second))
}

// TestChildRefusesAnAddressThatAnswers: with something listening on the
// receiver's address, Start fails naming it and starts nothing.
func TestChildRefusesAnAddressThatAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	marker := filepath.Join(t.TempDir(), "started")
	c := NewChild("touch "+marker+"; exec sleep 30", ln.Addr().String(), alwaysReady)
	err = c.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "another process already listens on "+ln.Addr().String())
	assert.ErrorIs(t, err, ErrAddrInUse)
	assert.NoFileExists(t, marker, "the child was started anyway")
	assert.NoError(t, c.Err())
}

// TestReadyCountsOnlyWhileTheChildIsAlive: an answer that comes after the
// child died is not the child's, even when the readiness check says yes.
func TestReadyCountsOnlyWhileTheChildIsAlive(t *testing.T) {
	t.Parallel()
	c := NewChild("echo; exit 3", "", nil)
	c.ready = func(context.Context) error {
		c.mu.Lock()
		p := c.proc
		c.mu.Unlock()
		<-p.exited // answer only once the child is gone
		return nil
	}
	err := c.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited on its own before it was ready (exit status 3)")
}

// TestChildThatExitsOnItsOwn: a child that was ready and then exited by
// itself is reported (Failed, Err) with its status and output, and the
// faults find nothing to act on.
func TestChildThatExitsOnItsOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "go")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	c := NewChild(fmt.Sprintf("read x < %s; echo bye from the receiver; exit 7", fifo), "", alwaysReady)
	c.SetLogDir(dir)
	require.NoError(t, c.Start(context.Background()))
	require.NoError(t, c.Err())

	require.NoError(t, os.WriteFile(fifo, []byte("go\n"), 0o600)) // blocks until the child reads
	waitFor(t, c.Failed(), "the child's exit")
	err := c.Err()
	require.Error(t, err)
	for _, want := range []string{"exited on its own after it was ready (exit status 7)", "bye from the receiver"} {
		assert.Contains(t, err.Error(), want)
	}
	assert.ErrorContains(t, c.Freeze(), "exit status 7", "nothing to freeze")
	assert.ErrorContains(t, c.Kill(), "exit status 7", "a kill that hits no live child is an error")
	assert.ErrorContains(t, c.Kill(), "not running")
	require.NoError(t, c.Stop(time.Second))
	log, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	assert.Regexp(t, `--- fencecheck: pid \d+ exited on its own \(exit status 7\)`, string(log))
}

// TestChildStartedAgainAfterItExitedOnItsOwn: a caller that survives a
// receiver's exit (verify, which plays its next scenario) learns of each
// exit from Down, with the receiver's status and last lines, and starts
// it again with StartAgain; Err keeps the first exit for the whole run.
func TestChildStartedAgainAfterItExitedOnItsOwn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "go")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	c := NewChild(fmt.Sprintf("echo listening; read x < %s; echo \"exiting on $x\"; exit 7", fifo), "", alwaysReady)
	c.SetLogDir(dir)
	ctx := context.Background()
	assert.ErrorContains(t, c.Down(), "is not running", "before its start")
	require.NoError(t, c.Start(ctx))
	for i, token := range []string{"2^63", "2^64-1"} {
		require.NoError(t, c.Down(), "start %d runs", i+1)
		assert.ErrorContains(t, c.StartAgain(ctx), "is running", "a running receiver is not started twice")
		require.NoError(t, os.WriteFile(fifo, []byte(token+"\n"), 0o600)) // blocks until the child reads
		require.Eventually(t, func() bool { return c.Down() != nil }, 30*time.Second, time.Millisecond, "the exit of start %d", i+1)
		var exit *ExitError
		require.ErrorAs(t, c.Down(), &exit)
		assert.Equal(t, "exit status 7", exit.State)
		assert.True(t, exit.Ready)
		assert.Equal(t, []string{"listening", "exiting on " + token}, exit.LastLines(3), "its last lines, without fencecheck's own")
		assert.Equal(t, []string{"exiting on " + token}, exit.LastLines(1))
		assert.ErrorContains(t, c.Err(), "exiting on 2^63", "Err keeps the first exit")
		require.NoError(t, c.StartAgain(ctx))
	}
	require.NoError(t, c.Down())
	require.NoError(t, c.Stop(time.Second))
	assert.ErrorContains(t, c.Down(), "is not running", "after its stop")
	log, err := os.ReadFile(filepath.Join(dir, LogFile))
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(log), "--- fencecheck: start"))
}

// TestStopEndsTheWholeGroup: a receiver a shell command line forked (a
// grandchild) is stopped with the shell.
func TestStopEndsTheWholeGroup(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := NewChild(fmt.Sprintf("sleep 30 & echo $! > %s.tmp && mv %[1]s.tmp %[1]s; wait", pidFile), "", func(context.Context) error {
		_, err := os.Stat(pidFile)
		return err
	})
	require.NoError(t, c.Start(context.Background()))
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	grandchild, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	require.True(t, alive(grandchild))
	require.NoError(t, c.Stop(5*time.Second))
	assert.False(t, alive(grandchild), "the shell's child outlived Stop")
}

func TestShellCommand(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"./recv --port 9000":      "exec ./recv --port 9000",
		"exec ./recv":             "exec ./recv",
		"cd d && ./recv":          "cd d && ./recv",
		"PORT=$P ./recv":          "PORT=$P ./recv",
		"./recv > out.log 2>&1":   "./recv > out.log 2>&1",
		"  ./recv --store a.db  ": "exec ./recv --store a.db",
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, want, shellCommand(in))
		})
	}
}

// TestChildAsAnotherUser: a child with a Role is named by it, writes to
// the log file it was given, and with a Credential runs as that user
// (as root only: another user cannot change its own).
func TestChildAsAnotherUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("running a child as another user needs root; this test runs as uid " + strconv.Itoa(os.Geteuid()))
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "server.log")
	said := func(context.Context) error { // ready once it said who it is
		if out, _ := os.ReadFile(log); strings.Count(string(out), "\n") < 2 {
			return errors.New("not yet")
		}
		return nil
	}
	c := NewChild("id -u; exec sleep 30", "", said)
	c.Role = "test-server"
	c.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	c.SetLogFile(log)
	require.NoError(t, c.Start(context.Background()))
	err := c.Start(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), `test-server "id -u; exec sleep 30" is already running`)
	require.NoError(t, c.Stop(5*time.Second))
	out, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Contains(t, string(out), "\n65534\n", "the child ran as uid 65534")
}

// TestChildTree: with Tree, Freeze, Thaw and Kill reach a process the
// child started in a session of its own, as PostgreSQL's server starts
// each of its processes, which a signal to the child's group misses.
func TestChildTree(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid program to start a process in a session of its own")
	}
	c := NewChild("setsid sleep 30 & exec sleep 30", "", nil)
	// Ready once the child's own child has left its group: a process
	// forked for "setsid sleep 30 &" is in the child's group until
	// setsid has run in it, and under load that can come after the fork
	// is seen.
	c.ready = func(context.Context) error {
		kids, err := procfs.Children(c.currentPID())
		if err != nil || len(kids) == 0 {
			return errors.New("no child yet")
		}
		s, err := procfs.ReadStat(kids[0])
		if err != nil || s.PGRP == c.currentPID() {
			return errors.New("the child's child has not started its session yet")
		}
		return nil
	}
	c.Tree = true
	require.NoError(t, c.Start(context.Background()))
	kids, err := procfs.Children(c.currentPID())
	require.NoError(t, err)
	require.Len(t, kids, 1)
	kid := kids[0]
	s, err := procfs.ReadStat(kid)
	require.NoError(t, err)
	require.NotEqual(t, c.currentPID(), s.PGRP, "the grandchild is in a group of its own")

	require.NoError(t, c.Freeze())
	s, err = procfs.ReadStat(kid)
	require.NoError(t, err)
	assert.Equal(t, byte('T'), s.State, "frozen")
	require.NoError(t, c.Thaw())
	s, err = procfs.ReadStat(kid)
	require.NoError(t, err)
	assert.NotEqual(t, byte('T'), s.State, "thawed")

	require.NoError(t, c.Kill())
	assert.True(t, procfs.Gone(kid), "the grandchild survived the kill")
	require.NoError(t, c.Stop(time.Second))
}
