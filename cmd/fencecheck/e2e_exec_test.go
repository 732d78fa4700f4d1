package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/procfs"
)

// The end-to-end tests of --exec: the receiver under test is the one
// fencecheck started, and it does not outlive fencecheck.

// built are the test receivers of testdata, each built once.
var built sync.Map // name → *testBinary

type testBinary struct {
	once sync.Once
	path string
	err  error
}

// buildTestdata builds ./testdata/PKG once, with the race detector if
// race, and returns its path.
func buildTestdata(t *testing.T, pkg string, race bool) string {
	t.Helper()
	name := pkg
	args := []string{"build"}
	if race {
		name, args = pkg+"-race", append(args, "-race")
	}
	v, _ := built.LoadOrStore(name, &testBinary{})
	b := v.(*testBinary)
	b.once.Do(func() {
		b.path = filepath.Join(filepath.Dir(fencecheckBinary), name)
		out, err := exec.Command("go", append(args, "-o", b.path, "./testdata/"+pkg)...).CombinedOutput()
		if err != nil {
			b.err = fmt.Errorf("build %s: %v\n%s", name, err, out)
		}
	})
	require.NoError(t, b.err)
	return b.path
}

// flakyReceiver builds testdata/flakyreceiver once and returns its path.
func flakyReceiver(t *testing.T) string {
	t.Helper()
	return buildTestdata(t, "flakyreceiver", false)
}

// eventually polls cond until it holds; the bound only ends a broken test.
func eventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	require.Eventually(t, cond, 60*time.Second, 10*time.Millisecond, "timed out waiting until %s", what)
}

func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// background starts fencecheck without waiting for it.
type background struct {
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	done   chan struct{}
}

func startFencecheck(t *testing.T, dir string, args ...string) *background {
	t.Helper()
	b := &background{cmd: exec.Command(fencecheckBinary, args...), done: make(chan struct{})}
	b.cmd.Dir = dir
	b.cmd.Stdout, b.cmd.Stderr = &b.stdout, &b.stderr
	require.NoError(t, b.cmd.Start())
	go func() { _ = b.cmd.Wait(); close(b.done) }()
	t.Cleanup(func() {
		_ = b.cmd.Process.Kill()
		<-b.done
	})
	return b
}

// wait waits for fencecheck to exit and returns its exit code.
func (b *background) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(5 * time.Minute):
		t.Fatal("fencecheck did not exit")
	}
	return b.cmd.ProcessState.ExitCode()
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// TestExecRefusesAnAddressThatAnswers: with another server on the port,
// run and verify stop before they start anything, naming the address.
func TestExecRefusesAnAddressThatAnswers(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	addr := ln.Addr().String()
	for _, command := range []string{"run", "verify"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, command, "--target", "http://"+addr, "--exec", "touch started; exec sleep 30", "--store", "s")
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, "another process already listens on "+addr)
			assert.NoFileExists(t, filepath.Join(dir, "started"), "the receiver was started anyway")
			assert.NotContains(t, r.stdout, "verdict")
		})
	}
}

// TestExecReceiverThatExitsOnGetRoot: the default readiness (a TCP
// connect) sends no request, so a receiver that exits on GET / runs; a GET
// / probe, what --exec used to do, kills it.
func TestExecReceiverThatExitsOnGetRoot(t *testing.T) {
	t.Parallel()
	recv := flakyReceiver(t)
	cases := []struct {
		ready  []string
		code   int
		output string
	}{
		{nil, 0, "HELD"},
		{[]string{"--ready", "http-get:/"}, 3, "exited on its own before it was ready (exit status 5)"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.ready), func(t *testing.T) {
			t.Parallel()
			addr := freeAddr(t)
			args := append([]string{"run", "--target", "http://" + addr, "--exec", recv + " --exit-on-root --listen " + addr,
				"--ops", "200", "--op-timeout", "2s", "--seed", "1", "--store", "s"}, tc.ready...)
			r := fencecheck(t, schema.TempDir(t), args...)
			assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout+r.stderr, tc.output)
		})
	}
}

// TestExecChildThatDiesAtEveryStart: a receiver that cannot start (its
// port is taken behind fencecheck's back, say) is an error naming its
// exit, never a verdict.
func TestExecChildThatDiesAtEveryStart(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	dying := fmt.Sprintf("echo 'listen tcp %s: bind: address already in use' >&2; exit 1", addr)
	for _, args := range [][]string{
		{"run", "--nemesis", "pause,kill", "--duration", "2s"},
		{"verify"},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), append(args, "--target", "http://"+addr, "--exec", dying, "--store", "s")...)
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, "exited on its own before it was ready (exit status 1)")
			assert.Contains(t, r.stderr, "address already in use", "the end of its output")
			assert.Empty(t, r.stdout, "no verdict, no table")
		})
	}
}

// TestExecReceiverThatExitsDuringTheRun: under --nemesis kill, the
// receiver is crashed and restarted until it exits on its own; the run
// then ends with an error, every kill it counts hit a live receiver, and
// the history stays checkable.
func TestExecReceiverThatExitsDuringTheRun(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	addr := freeAddr(t)
	die := filepath.Join(dir, "die")
	recv := fmt.Sprintf("%s --listen %s --die-when %s --store sqlite:%s", flakyReceiver(t), addr, die, filepath.Join(dir, "recv.db"))
	b := startFencecheck(t, dir, "run", "--target", "http://"+addr, "--exec", recv, "--nemesis", "kill",
		"--nemesis-script", "10ms:+kill", "--duration", "10m", "--seed", "1", "--store", "s", "--no-report")
	starts := func() int {
		logs, _ := filepath.Glob(filepath.Join(dir, "s", "*", "*", "receiver.log"))
		if len(logs) != 1 {
			return 0
		}
		data, _ := os.ReadFile(logs[0])
		return strings.Count(string(data), "--- fencecheck: start")
	}
	eventually(t, func() bool { return starts() >= 3 }, "the kill fault restarted the receiver twice")
	require.NoError(t, os.WriteFile(die, nil, 0o644))

	code := b.wait(t)
	assert.Equal(t, 3, code, b.stdout.String()+b.stderr.String())
	stderr := b.stderr.String()
	// It exits on the first request after the file exists: while it
	// serves, or, if a crash restarted it meanwhile, while it starts.
	assert.Regexp(t, `exited on its own (after|before) it was ready \(exit status 7\)`, stderr)
	assert.Contains(t, stderr, "die exists; exiting after", "the end of its output")
	assert.Contains(t, stderr, "the history recorded until then is in")
	assert.NotContains(t, b.stdout.String(), "verdict")

	run := newestRun(t, filepath.Join(dir, "s"))
	why, err := os.ReadFile(filepath.Join(run, "error.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(why), "exited on its own", "the run directory says why it has no result")
	assert.NoFileExists(t, filepath.Join(dir, "s", "latest"), "a failed run is not latest")
	history := filepath.Join(run, "history.jsonl")
	h, err := histories.Read(t.Context(), histories.Source{Path: history})
	require.NoError(t, err)
	kills := 0
	for _, e := range h.Others {
		if e.Fault == "kill" && e.F == histories.FCrash {
			kills++
		}
	}
	// Each counted kill restarted the receiver; the last start is the one
	// that exited on its own, and no kill was counted against it.
	assert.Equal(t, starts()-1, kills, "kills counted in the history vs restarts in receiver.log")

	c := fencecheck(t, dir, "check", history)
	assert.Contains(t, []int{0, 2}, c.code, "check reads the failed run's history: "+c.stdout+c.stderr)
}

// TestExecReady: --ready's three kinds work with the reference receiver,
// and a bad value is a usage error naming the flag.
func TestExecReady(t *testing.T) {
	t.Parallel()
	// The command asks the receiver itself, as a readiness command must:
	// a marker in its output would still be there from before a restart
	// (restart-durability restarts it).
	for _, ready := range []string{"tcp", "http-get:/health", "cmd:curl -s -o /dev/null http://ADDR/health"} {
		t.Run(ready, func(t *testing.T) {
			t.Parallel()
			if strings.HasPrefix(ready, "cmd:curl") {
				if _, err := exec.LookPath("curl"); err != nil {
					t.Skip("no curl on this machine to ask the receiver with")
				}
			}
			addr := freeAddr(t)
			ready := strings.ReplaceAll(ready, "ADDR", addr)
			r := fencecheck(t, schema.TempDir(t), "verify", "--target", "http://"+addr, "--store", "s", "--ready", ready,
				"--exec", fmt.Sprintf("%s receiver --listen %s --store sqlite:recv.db > recv.out", fencecheckBinary, addr))
			assert.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "9 passed, 0 failed")
		})
	}
	addr := freeAddr(t)
	for _, bad := range []string{"bogus", "tcp:80", "http-get:", "http-get:health", "http-get:/a b", "cmd:", "cmd:  "} {
		t.Run("bad "+bad, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), "run", "--target", "http://"+addr, "--exec", "touch started; sleep 30", "--ready", bad)
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, "--ready")
			assert.Contains(t, r.stderr, "Run 'fencecheck --help' for usage.")
		})
	}
	t.Run("without --exec", func(t *testing.T) {
		t.Parallel()
		r := fencecheck(t, schema.TempDir(t), "verify", "--target", "http://"+addr, "--ready", "tcp")
		assert.Equal(t, 3, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stderr, "--ready: needs --exec")
	})
}

// TestExecReceiverDoesNotOutliveFencecheck: a SIGKILLed fencecheck
// cannot stop its receiver, the parent-death signal does; on SIGTERM
// fencecheck stops the receiver's whole group before it exits, which also
// reaches a receiver a shell command line forked (the parent-death signal
// would not).
func TestExecReceiverDoesNotOutliveFencecheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		signal syscall.Signal
		exec   string // writes the receiver's pid to child.pid
	}{
		{syscall.SIGKILL, "echo $$ > child.tmp && mv child.tmp child.pid; exec %s receiver --listen %s"},
		{syscall.SIGTERM, "%s receiver --listen %s & echo $! > child.tmp && mv child.tmp child.pid; wait"},
	}
	for _, tc := range cases {
		t.Run(tc.signal.String(), func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			addr := freeAddr(t)
			b := startFencecheck(t, dir, "run", "--target", "http://"+addr, "--duration", "10m", "--store", "s",
				"--nemesis", "none", "--exec", fmt.Sprintf(tc.exec, fencecheckBinary, addr))
			pidFile := filepath.Join(dir, "child.pid")
			eventually(t, func() bool { _, err := os.Stat(pidFile); return err == nil && answers(addr) }, "the receiver answers")
			pid := readPID(t, pidFile)
			require.False(t, procfs.Gone(pid))

			require.NoError(t, b.cmd.Process.Signal(tc.signal))
			b.wait(t)
			if tc.signal == syscall.SIGTERM {
				// fencecheck waited for the group before it exited.
				assert.True(t, procfs.Gone(pid), "the receiver the shell forked outlived fencecheck")
				return
			}
			eventually(t, func() bool { return procfs.Gone(pid) }, fmt.Sprintf("the receiver (pid %d) died with fencecheck", pid))
		})
	}
}
