package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/spawn"
)

// startReceiver runs `fencecheck receiver` on a free loopback port and
// returns its base URL; the receiver is stopped with SIGTERM at cleanup.
func startReceiver(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(fencecheckBinary, append([]string{"receiver", "--listen", "127.0.0.1:0"}, args...)...)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		lines <- line
		_, _ = bufio.NewReader(out).WriteTo(devNull{})
	}()
	select {
	case line := <-lines:
		m := regexp.MustCompile(`listening on (http://\S+)`).FindStringSubmatch(line)
		require.NotNil(t, m, "unexpected first line %q", line)
		return m[1]
	case <-time.After(30 * time.Second):
		t.Fatal("the receiver did not start")
	}
	return ""
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

// freeAddr returns a loopback address nothing listens on right now, for
// a receiver the test has fencecheck start (spawn.FreePort says why not
// port 0).
func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := spawn.FreePort()
	require.NoError(t, err)
	return fmt.Sprintf("127.0.0.1:%d", port)
}

// TestReferenceReceiverE2E: the built binary's receiver, in each mode,
// against verify (every scenario passes in the correct mode, the matching
// one fails in each bug mode) and run (valid when correct).
func TestReferenceReceiverE2E(t *testing.T) {
	t.Parallel()
	cases := []struct {
		bug    string
		code   int
		failed []string
		extra  []string // more receiver flags
	}{
		{"none", 0, nil, nil},
		{"unfenced", 1, []string{"stale-after-newer", "digit-boundaries"}, nil},
		// The racers are goroutines sending HTTP requests at once; a
		// window wider than the default 5ms keeps them inside it on a
		// loaded machine too.
		{"check-then-set", 1, []string{"check-then-set-race"}, []string{"--window", "250ms"}},
		{"accept-equal", 1, []string{"equal-token-repeat"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.bug, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			base := startReceiver(t, append([]string{"--bug", tc.bug}, tc.extra...)...)
			r := fencecheck(t, dir, "verify", "--target", base, "--store", "s")
			assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			for _, name := range tc.failed {
				assert.Regexp(t, `\| `+name+` \|.*\| FAIL \|`, r.stdout)
			}
			for _, f := range []string{"table.txt", "result.json", "history.jsonl"} {
				assert.FileExists(t, filepath.Join(dir, "s", "latest", f))
			}
			if tc.code == 0 {
				assert.Contains(t, r.stdout, "7 passed, 0 failed, 1 info, 1 skipped")
				run := fencecheck(t, dir, "run", "--target", base, "--ops", "800", "--lease-ttl", "30ms", "--op-timeout", "2s", "--seed", "1", "--store", "s",
					"--nemesis", "pause,delay,duplicate,hold,drop-response,latency")
				assert.Equal(t, 0, run.code, run.stdout+run.stderr)
				assert.Contains(t, run.stdout, "HELD")
			}
		})
	}
}

// TestForgetOnRestartThroughExecAndKill: with --exec and the kill nemesis,
// run finds the receiver that keeps its highest token only in memory and
// passes the durable one; verify's restart scenario does the same.
func TestForgetOnRestartThroughExecAndKill(t *testing.T) {
	t.Parallel()
	for _, bug := range []string{"none", "forget-on-restart"} {
		t.Run(bug, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			want := 0
			if bug != "none" {
				want = 1
			}
			receiver := func(addr string) string {
				return fmt.Sprintf("%s receiver --listen %s --store sqlite:%s --bug %s",
					fencecheckBinary, addr, filepath.Join(dir, strings.ReplaceAll(addr, ":", "-")+".db"), bug)
			}
			addr := freeAddr(t)
			v := fencecheck(t, dir, "verify", "--target", "http://"+addr, "--exec", receiver(addr), "--store", "s")
			assert.Equal(t, want, v.code, v.stdout+v.stderr)
			if bug == "none" {
				assert.Contains(t, v.stdout, "9 passed, 0 failed, 1 info, 0 skipped")
			} else {
				assert.Regexp(t, `\| restart-durability \|.*\| FAIL \|`, v.stdout)
			}
			assert.FileExists(t, filepath.Join(dir, "s", "latest", "receiver.log"))

			addr = freeAddr(t)
			// A worker held across a crash makes the crash happen (see
			// nemesis.Kill): one run finds the bug, loaded machine or not,
			// given the time to hear the receiver's answer to its stale
			// write while the machine is slow to restart it (with the
			// default 4×lease-ttl, a loaded machine turns them unknown).
			r := fencecheck(t, dir, "run", "--target", "http://"+addr, "--exec", receiver(addr),
				"--nemesis", "pause,kill", "--ops", "400", "--op-timeout", "2s", "--seed", "1", "--store", "s")
			// A machine too loaded to hear the restarted receiver's answer
			// to any stale write gets no pass, and no violation either:
			// the run says it did not test durability across a crash.
			// Never a pass for the forgetful receiver.
			if r.code == exitInconclusive {
				assert.Contains(t, r.stdout, "verdict     INCONCLUSIVE: no stale write reached the receiver after it was crashed and started again", r.stdout+r.stderr)
			} else {
				assert.Equal(t, want, r.code, r.stdout+r.stderr)
			}
			if r.code == exitHeld {
				assert.NotContains(t, r.stdout, "(0 stale writes answered after one)", "a pass without a stale write after a crash")
			}
			assert.Regexp(t, `fault actions .*kill [1-9]`, r.stdout)
			log, err := os.ReadFile(filepath.Join(dir, "s", "latest", "receiver.log"))
			require.NoError(t, err)
			assert.GreaterOrEqual(t, strings.Count(string(log), "--- fencecheck: start"), 2, "the receiver was never restarted")
		})
	}
}

func TestHTTPErrorsExit3(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	cases := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"run: unreachable receiver", []string{"run", "--target", "http://" + addr, "--duration", "1s"}, "does not answer"},
		{"verify: unreachable receiver", []string{"verify", "--target", "http://" + addr}, "does not answer"},
		{"kill needs --exec", []string{"run", "--target", "http://" + addr, "--nemesis", "kill"}, "needs --exec"},
		{"proxy fault needs http", []string{"run", "--target", "memory://fenced", "--nemesis", "drop-response"}, "needs an http:// target"},
		{"exec needs http", []string{"verify", "--target", "memory://fenced", "--exec", "true"}, "--exec: needs an http://"},
		{"bad adapter", []string{"verify", "--target", "http://" + addr, "--adapter", "nope.json"}, "--adapter"},
		{"receiver: not loopback", []string{"receiver", "--listen", "0.0.0.0:0"}, "--allow-remote"},
		{"receiver: bad bug", []string{"receiver", "--bug", "sloppy"}, "--bug"},
		{"exec: receiver exits", []string{"verify", "--target", "http://" + addr, "--exec", "exit 4"}, "exited on its own before it was ready"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), tc.args...)
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, tc.stderr)
		})
	}
}
