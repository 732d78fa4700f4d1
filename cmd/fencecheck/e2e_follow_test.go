package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/testsupport/gotool"
	"github.com/fencecheck/fencecheck/internal/testsupport/histgen"
)

// generated writes a history of ops operations on 50 resources by 50
// clients, 10 % unknown writes, with a stale read planted from
// violateAt on (-1: none), as lines.
func generated(t *testing.T, ops, violateAt int) []byte {
	t.Helper()
	var out []byte
	_, err := histgen.Stream(rand.New(rand.NewPCG(3, 4)), histgen.Bench(ops, 50, 50, 0.1, false), violateAt, func(e *histories.Event) error {
		out = histories.AppendJSON(out, e)
		return nil
	})
	require.NoError(t, err)
	return out
}

// TestCheckFollowPipeAgreesWithFile runs the built binary on a generated
// history through a pipe (check -) and on the same history as a file,
// and asks for the same verdict and, for a planted violation, the same
// explanation and minimal counterexample: the CI-sized version of the
// 100M-operation measurement in docs/performance.md.
func TestCheckFollowPipeAgreesWithFile(t *testing.T) {
	n := 1_000_000
	if testing.Short() || gotool.RaceEnabled {
		n = 100_000 // the race detector makes the binary ten times slower
	}
	tests := []struct {
		name      string
		violateAt int
		code      int
	}{
		{"valid", -1, exitHeld},
		{"a stale read late", n * 9 / 10, exitViolated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := schema.TempDir(t)
			lines := generated(t, n, tt.violateAt)
			path := filepath.Join(dir, "history.jsonl")
			require.NoError(t, os.WriteFile(path, lines, 0o644))
			whole := fencecheck(t, dir, "check", "--json", path)
			require.Equal(t, tt.code, whole.code, whole.stderr)

			cmd := exec.Command(fencecheckBinary, "check", "--json", "-")
			cmd.Stdin = bytes.NewReader(lines) // a pipe: exec copies it in
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tt.code, code, errb.String())
			assert.NoError(t, schema.ValidateResult(strings.NewReader(out.String()), "check --json -"))

			var w, f checkReportForTest
			require.NoError(t, json.Unmarshal([]byte(whole.stdout), &w))
			require.NoError(t, json.Unmarshal(out.Bytes(), &f))
			assert.Equal(t, w.Verdict, f.Verdict)
			assert.Equal(t, w.Reason, f.Reason)
			assert.Equal(t, w.Counts, f.Counts)
			assert.Equal(t, w.Check.Violations, f.Check.Violations)
			if tt.violateAt >= 0 {
				require.NotNil(t, w.Minimal)
				require.NotNil(t, f.Minimal)
				assert.Equal(t, w.Minimal.Ops, f.Minimal.Ops, "minimal counterexample")
				assert.Equal(t, w.Minimal.Violation, f.Minimal.Violation)
			}
		})
	}
}

// checkReportForTest is what the test compares of check --json.
type checkReportForTest struct {
	Verdict string          `json:"verdict"`
	Reason  string          `json:"reason"`
	Counts  json.RawMessage `json:"counts"`
	Check   struct {
		Violations json.RawMessage `json:"violations"`
	} `json:"check"`
	Minimal *struct {
		Ops       []int           `json:"ops"`
		Violation json.RawMessage `json:"violation"`
	} `json:"minimal"`
}

// TestCheckFollowReportsBeforeTheEnd writes a history with a stale read
// into the binary's standard input and keeps the pipe open: the
// violation must be reported while the writer waits, not when the input
// ends. The test waits for the line, not for a time.
func TestCheckFollowReportsBeforeTheEnd(t *testing.T) {
	lines := generated(t, 20_000, 10_000)
	cmd := exec.Command(fencecheckBinary, "check", "-")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	_, err = stdin.Write(lines)
	require.NoError(t, err)
	sc := bufio.NewScanner(stdout)
	found := ""
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "found ") {
			found = sc.Text()
			break
		}
	}
	assert.Contains(t, found, "a violation on", "no violation reported while the input stayed open")
	require.NoError(t, stdin.Close())
	rest, _ := io.ReadAll(stdout)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, exitViolated, ee.ExitCode())
	assert.Contains(t, string(rest), "minimal counterexample: 3 of")
}

// TestCheckFollowFileUntilResult follows a history file whose run has
// finished: the result.json beside it ends the following.
func TestCheckFollowFileUntilResult(t *testing.T) {
	dir := t.TempDir() // not validated: its result.json is a stand-in, whose existence alone counts
	path := filepath.Join(dir, "history.jsonl")
	require.NoError(t, os.WriteFile(path, generated(t, 5_000, -1), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "result.json"), []byte("{}"), 0o644))
	r := fencecheck(t, dir, "check", "--follow", path)
	assert.Equal(t, exitHeld, r.code, r.stderr)
	assert.Contains(t, r.stdout, "operations     5000:")
}

// TestRunStopOnViolation stops an unfenced receiver's run at its first
// violation: the result says the run was interrupted and violated, and
// the history it left is checkable and violated too.
func TestRunStopOnViolation(t *testing.T) {
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--target", "memory://unfenced", "--stop-on-violation", "--duration", "10m", "--seed", "5", "--json", "--store", "store")
	require.Equal(t, exitViolated, r.code, r.stderr)
	assert.Contains(t, r.stderr, "stopped the run early: a violation on")
	var res struct {
		Interrupted    bool   `json:"interrupted"`
		StoppedBecause string `json:"stopped_because"`
		Verdict        string `json:"verdict"`
		Dir            string `json:"dir"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.True(t, res.Interrupted)
	assert.Regexp(t, `^a violation on \S+, found after \d+ events \(--stop-on-violation\)$`, res.StoppedBecause)
	assert.Equal(t, "violated", res.Verdict)
	stored, err := os.ReadFile(filepath.Join(dir, res.Dir, "result.json"))
	require.NoError(t, err)
	assert.Contains(t, string(stored), `"stopped_because": "`+res.StoppedBecause+`"`, "the stored result says why the run stopped")
	summary, err := os.ReadFile(filepath.Join(dir, res.Dir, "summary.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "interrupted the run was stopped early: "+res.StoppedBecause+"; the verdict covers")
	again := fencecheck(t, dir, "check", filepath.Join(res.Dir, "history.jsonl"))
	assert.Equal(t, exitViolated, again.code, again.stdout)
}
