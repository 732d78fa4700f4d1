package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// The end-to-end tests of the receiver's log: a receiver fencecheck
// started is judged by its output as well as by its answers.

// racyReceiver builds testdata/flakyreceiver with the race detector, once,
// and returns the command line that runs it with its data race.
func racyReceiver(t *testing.T) string {
	t.Helper()
	return buildTestdata(t, "flakyreceiver", true) + " --racy"
}

// TestExecReceiverLogDataRace: a receiver whose every answer is right but
// whose race detector reports a race is found from its log, by run (exit
// 1, the DATA RACE lines quoted in the summary, result.json and JUnit)
// and by verify (its receiver-log row fails). Three runs: the race fires
// on the first request of every run.
func TestExecReceiverLogDataRace(t *testing.T) {
	t.Parallel()
	recv := racyReceiver(t)
	for i := range 3 {
		t.Run(fmt.Sprint("run ", i), func(t *testing.T) {
			t.Parallel()
			dir, addr := schema.TempDir(t), freeAddr(t)
			r := fencecheck(t, dir, "run", "--target", "http://"+addr, "--exec", recv+" --listen "+addr,
				"--ops", "100", "--nemesis", "none", "--seed", fmt.Sprint(i+1), "--store", "s", "--junit", "junit.xml")
			t.Log(r.stdout)
			assert.Equal(t, 1, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "verdict     VIOLATED: the receiver's log (receiver.log) shows ")
			assert.Regexp(t, `receiver    receiver\.log: searched \d+ lines for Go, Python, Java, Node and Rust crash signatures: \d+ Go data races? \(finding\), first at line \d+: WARNING: DATA RACE; the receiver was built with -race\n`, r.stdout)
			assert.Regexp(t, `(?m)^  Go data race at line \d+:\n(.*\n)*\s+\d+ \| WARNING: DATA RACE\n`, r.stdout)
			assert.Contains(t, r.stdout, "flakyreceiver/main.go", "the race report's stack is quoted")

			run := newestRun(t, filepath.Join(dir, "s"))
			data, err := os.ReadFile(filepath.Join(run, "result.json"))
			require.NoError(t, err)
			var res struct {
				Verdict     string `json:"verdict"`
				ReceiverLog struct {
					Hits     int `json:"hits"`
					Excerpts []struct {
						Pattern string `json:"pattern"`
					} `json:"excerpts"`
				} `json:"receiver_log"`
			}
			require.NoError(t, json.Unmarshal(data, &res))
			assert.Equal(t, "violated", res.Verdict)
			assert.Positive(t, res.ReceiverLog.Hits)
			require.NotEmpty(t, res.ReceiverLog.Excerpts)
			assert.Equal(t, "Go data race", res.ReceiverLog.Excerpts[0].Pattern)

			junit, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
			require.NoError(t, err)
			assert.Regexp(t, `classname="receiver-log"[^>]*>\s*<failure`, string(junit))
			assert.Contains(t, string(junit), "WARNING: DATA RACE")
		})
	}
	t.Run("verify", func(t *testing.T) {
		t.Parallel()
		addr := freeAddr(t)
		r := fencecheck(t, schema.TempDir(t), "verify", "--target", "http://"+addr, "--exec", recv+" --store sqlite:recv.db --listen "+addr, "--store", "s")
		t.Log(r.stdout)
		assert.Equal(t, 1, r.code, r.stdout+r.stderr)
		assert.Regexp(t, `\| receiver-log \| .* \| receiver\.log: searched \d+ lines for .* crash signatures: \d+ Go data races? \(finding\).*\| FAIL \|`, r.stdout)
		assert.Contains(t, r.stdout, "the receiver's log (")
		assert.Contains(t, r.stdout, "WARNING: DATA RACE")
		assert.Contains(t, r.stdout, "1 failed", "the scenarios passed: only the log fails the battery")
	})
}

// TestExecLogFail: --log-fail's patterns are signs of a bug too, in run
// and verify; a clean log says so; a bad pattern, or one without --exec,
// is a usage error naming the flag, in every command that takes a target.
func TestExecLogFail(t *testing.T) {
	t.Parallel()
	serve := func(addr string) string {
		return fmt.Sprintf("%s receiver --listen %s --store sqlite:recv.db", fencecheckBinary, addr)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		output []string
	}{
		{"a pattern in the output", []string{"run", "--log-fail", `^never`, "--log-fail", `listening on http://127\.0\.0\.1:\d+`}, 1,
			[]string{`crash signatures and 2 patterns of yours: 1 line matching "listening on http://127\\.0\\.0\\.1:\\d+" (finding), first at line 2: fencecheck receiver: listening on http://127.0.0.1:`,
				"verdict     VIOLATED: the receiver's log (receiver.log) shows 1 line matching"}},
		{"a pattern not in the output", []string{"run", "--log-fail", `lost write`}, 0,
			[]string{"crash signatures and 1 pattern of yours: none found; ", "verdict     HELD"}},
		{"verify", []string{"verify", "--log-fail", `listening on`}, 1,
			[]string{"| receiver-log |", `2 lines matching "listening on" (finding), first at line 2; `, "| FAIL |", "listening on at line 2:",
				"restart-durability | 7 accepted; after SIGKILL and restart: read \"before\"@7, 6 rejected, 8 accepted | 7 accepted; after restart read \"before\"@7, 6 rejected, 8 accepted | pass |"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			addr := freeAddr(t)
			args := append(tc.args, "--target", "http://"+addr, "--exec", serve(addr), "--store", "s")
			if tc.args[0] == "run" {
				args = append(args, "--ops", "100", "--nemesis", "none", "--min-stale", "0", "--seed", "1")
			}
			r := fencecheck(t, schema.TempDir(t), args...)
			t.Log(r.stdout)
			assert.Equal(t, tc.code, r.code, r.stdout+r.stderr)
			for _, want := range tc.output {
				assert.Contains(t, r.stdout, want)
			}
		})
	}
	addr := freeAddr(t)
	for _, command := range []string{"run", "verify", "compare-fixes", "sweep"} {
		for _, bad := range []struct {
			args []string
			err  string
		}{
			{[]string{"--exec", "touch started; sleep 30", "--log-fail", "(unclosed"}, "--log-fail: \"(unclosed\": error parsing regexp"},
			{[]string{"--exec", "touch started; sleep 30", "--log-fail", ".*"}, "--log-fail: \".*\" matches an empty line"},
			{[]string{"--log-fail", "lost"}, "--log-fail: needs --exec"},
		} {
			t.Run(command+" "+bad.err, func(t *testing.T) {
				t.Parallel()
				dir := schema.TempDir(t)
				r := fencecheck(t, dir, append([]string{command, "--target", "http://" + addr}, bad.args...)...)
				assert.Equal(t, 3, r.code, r.stdout+r.stderr)
				assert.Contains(t, r.stderr, bad.err)
				assert.Contains(t, r.stderr, "Run 'fencecheck --help' for usage.")
				assert.NoFileExists(t, filepath.Join(dir, "started"), "nothing was started")
			})
		}
	}
}
