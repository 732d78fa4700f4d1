package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
)

func TestRunExitCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"correct receiver holds", []string{"--target", "memory://fenced", "--seed", "7"}, 0, "HELD", ""},
		{"check-then-set is found with the defaults spelled out", []string{"--target", "memory://check-then-set", "--workers", "8", "--resources", "4", "--duration", "5s", "--nemesis", "pause,delay", "--seed", "7"}, 1, "VIOLATED", ""},
		{"coverage gate not met", []string{"--target", "memory://fenced", "--seed", "7", "--nemesis", "none", "--min-stale", "1"}, 2, "NO STALE WRITE WAS SUBMITTED", ""},
		{"unknown target", []string{"--target", "memory://fencd"}, 3, "", `unknown memory target "fencd"`},
		{"unsupported scheme", []string{"--target", "ftp://x"}, 3, "", `unsupported scheme "ftp"`},
		{"missing target", []string{}, 3, "", "--target: required"},
		{"bad workers", []string{"--target", "memory://fenced", "--workers", "0"}, 3, "", "workers: 0"},
		{"bad nemesis", []string{"--target", "memory://fenced", "--nemesis", "pause,flood"}, 3, "", `--nemesis: unknown fault "flood"`},
		{"bad flag value", []string{"--target", "memory://fenced", "--duration", "soon"}, 3, "", `"soon"`},
		{"bad requirement", []string{"--target", "memory://fenced", "--require", "everything"}, 3, "", "--require"},
		{"PCT finds check-then-set", []string{"--target", "memory://check-then-set", "--schedule", "pct:2", "--seed", "7"}, 1, "(deterministic, pct:2, seed 7)", ""},
		{"bad schedule", []string{"--target", "memory://fenced", "--schedule", "pct"}, 3, "", `--schedule: "pct": want random or pct:D`},
		{"schedule on the real clock", []string{"--target", "memory://fenced", "--realtime", "--schedule", "pct:2"}, 3, "",
			"--schedule pct:2: orders the tasks of the deterministic simulation, which only memory:// targets run in; --realtime puts this run on the real clock"},
		{"schedule for a database", []string{"--target", "sqlite://db", "--schedule", "random"}, 3, "",
			"--schedule random: orders the tasks of the deterministic simulation, which only memory:// targets run in; sqlite://db (atomic) runs on the real clock"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, append([]string{"run", "--store", "store"}, tc.args...)...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.stdout)
			assert.Contains(t, r.stderr, tc.stderr)
			if tc.code <= 2 {
				assert.FileExists(t, filepath.Join(dir, "store", "latest", "history.jsonl"))
				assert.FileExists(t, filepath.Join(dir, "store", "latest", "result.json"))
				assert.FileExists(t, filepath.Join(dir, "store", "latest", "summary.txt"))
				// The stored history is re-checkable and agrees.
				again := fencecheck(t, dir, "check", "store/latest/history.jsonl")
				if tc.code != 2 {
					assert.Equal(t, tc.code, again.code, again.stdout)
				}
			}
		})
	}
}

func TestRunSameSeedSameHistory(t *testing.T) {
	t.Parallel()
	var histories [2][]byte
	for i := range histories {
		dir := schema.TempDir(t)
		r := fencecheck(t, dir, "run", "--target", "memory://check-then-set", "--seed", "11", "--store", "s")
		require.Equal(t, 1, r.code, r.stderr)
		var err error
		histories[i], err = os.ReadFile(filepath.Join(dir, "s", "latest", "history.jsonl"))
		require.NoError(t, err)
	}
	assert.True(t, bytes.Equal(histories[0], histories[1]))
}

func TestRunJSON(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--target", "memory://unfenced", "--seed", "3", "--json", "--store", "s")
	require.Equal(t, 1, r.code, r.stderr)
	var res struct {
		Verdict  string `json:"verdict"`
		Coverage struct {
			StaleWrites int `json:"stale_writes"`
		} `json:"coverage"`
		Config struct {
			Seed uint64 `json:"seed"`
		} `json:"config"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.Equal(t, "violated", res.Verdict)
	assert.Equal(t, uint64(3), res.Config.Seed)
	assert.Positive(t, res.Coverage.StaleWrites)
}

// startLongRun starts a real-time run that would last an hour and waits
// until its history has reached the disk.
func startLongRun(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(fencecheckBinary, "run", "--target", "memory://fenced", "--realtime", "--duration", "1h",
		"--lease-ttl", "20ms", "--store", "s", "--seed", "5")
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	require.Eventually(t, func() bool {
		runs, _ := filepath.Glob(filepath.Join(dir, "s", "*", "*", "history.jsonl"))
		if len(runs) != 1 {
			return false
		}
		// Until what reached the disk is enough for a verdict on every
		// resource (an acknowledged write, then a read): how many bytes
		// that takes depends on how the workers were scheduled.
		h, err := histories.Read(t.Context(), histories.Source{Path: runs[0]})
		return err == nil && len(h.Ops) > 0 && h.Evidence().Enough()
	}, 60*time.Second, 20*time.Millisecond, "no history with evidence on every resource reached the disk")
	return cmd
}

// newestRun returns the newest run directory of the store: a run's
// folder is named for the time it started.
func newestRun(t *testing.T, store string) string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join(store, "*", "*"))
	require.NoError(t, err)
	runs := slices.DeleteFunc(all, func(p string) bool { return filepath.Base(filepath.Dir(p)) == "latest" })
	require.NotEmpty(t, runs, "no run in %s", store)
	slices.SortFunc(runs, func(a, b string) int { return strings.Compare(filepath.Base(a), filepath.Base(b)) })
	return runs[len(runs)-1]
}

// TestKilledRunLeavesACheckableHistory: SIGKILL leaves the history
// recorded so far, which check reads; the run, with no result, does not
// become latest.
func TestKilledRunLeavesACheckableHistory(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	cmd := startLongRun(t, dir)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	// Killed early, it may not have sent a stale write yet: the history
	// is checked with the stale-write gate opted out of.
	r := fencecheck(t, dir, "check", "--min-stale", "0", filepath.Join(newestRun(t, filepath.Join(dir, "s")), "history.jsonl"))
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "HELD")
	_, err := os.Lstat(filepath.Join(dir, "s", "latest"))
	assert.ErrorIs(t, err, os.ErrNotExist, "a killed run is not latest")
}

func TestInterruptedRunReportsAndChecks(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	cmd := startLongRun(t, dir)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err := cmd.Wait()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, exitInconclusive, exit.ExitCode(), "an interrupted run is no pass, even of a correct receiver")
	summary, err := os.ReadFile(filepath.Join(dir, "s", "latest", "summary.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "verdict     INTERRUPTED: the run was stopped early")
}

// TestRunRefusesNamesOutsideItsFolder: --name is one folder of the store;
// "latest" (which would write into the previous run and point latest at
// itself) and a path that climbs out of the store are usage errors that
// write nothing.
func TestRunRefusesNamesOutsideItsFolder(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"latest", "../esc", "a/b", ".."} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "run", "--target", "memory://fenced", "--seed", "1", "--ops", "20", "--name", name, "--store", "s")
			assert.Equal(t, 3, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, fmt.Sprintf("name: %q: not a run name", name))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Empty(t, entries, "a refused run writes nothing")
		})
	}
}
