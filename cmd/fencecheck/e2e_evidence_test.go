package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// TestNothingTestedIsNoPass: runs in which every write failed or went
// unanswered (a receiver answering 503; statements the database refuses)
// found no violation and tested nothing. They exit 2, quote the target's
// error, and do not ask for a fault that was on.
func TestNothingTestedIsNoPass(t *testing.T) {
	t.Parallel()
	overloaded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.NotFound(w, r) // never written
			return
		}
		http.Error(w, "overloaded, try later", http.StatusServiceUnavailable)
	}))
	t.Cleanup(overloaded.Close)
	run := []string{"run", "--ops", "200", "--seed", "1", "--store", "s"}
	cases := []struct {
		name  string
		args  func(t *testing.T, dir string) []string
		quote string
	}{
		{"a receiver answering 503", func(*testing.T, string) []string {
			return []string{"--target", overloaded.URL}
		}, "status 503"},
		{"a misspelled table", func(t *testing.T, dir string) []string {
			return []string{"--target", "sqlite://" + filepath.Join(dir, "x.db"),
				"--sql-setup", "CREATE TABLE results (id TEXT PRIMARY KEY, token INTEGER, value TEXT)",
				"--sql-write", "UPDATE resutls SET value = :value, token = :token WHERE id = :resource AND token < :token",
				"--sql-read", "SELECT value, token FROM results WHERE id = :resource"}
		}, "no such table: resutls"},
		{"PostgreSQL: a token the column cannot take", func(t *testing.T, dir string) []string {
			table := uniqueTable(t)
			spec := postgresEngine.spec(t, dir)
			return []string{"--target", spec,
				"--sql-setup", "CREATE TABLE " + table + " (id TEXT PRIMARY KEY, token UUID, value TEXT)",
				"--sql-write", "INSERT INTO " + table + " (id, token, value) VALUES (:resource, :token, :value) ON CONFLICT (id) DO UPDATE SET token = excluded.token, value = excluded.value WHERE " + table + ".token < excluded.token",
				"--sql-read", "SELECT value FROM " + table + " WHERE id = :resource",
				"--sql-teardown", "DROP TABLE " + table}
		}, `invalid input syntax for type uuid: "1" (SQLSTATE 22P02)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, append(run, tc.args(t, dir)...)...)
			require.Equal(t, exitInconclusive, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "verdict     INCONCLUSIVE: too little evidence for a verdict")
			assert.Contains(t, r.stdout, "no write was acknowledged")
			assert.Contains(t, r.stdout, "operations ended in an error; the first of each kind:")
			assert.Contains(t, r.stdout, tc.quote)
			assert.NotContains(t, r.stdout, "add pause")
			assert.Contains(t, r.stdout, "NO STALE WRITE WAS SUBMITTED: the protected case was never exercised: no write was acknowledged")
			again := fencecheck(t, dir, "check", "s/latest/history.jsonl")
			assert.Equal(t, exitInconclusive, again.code, "check agrees:\n%s", again.stdout)
			assert.Contains(t, again.stdout, tc.quote)
		})
	}
}

// TestStatementsThatCannotBeJudgedAreRefused: a write of two statements
// (which PostgreSQL refuses on every write) is refused before the run,
// naming the flag, rather than run to an inconclusive end.
func TestStatementsThatCannotBeJudgedAreRefused(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	spec := postgresEngine.spec(t, dir)
	r := fencecheck(t, dir, "run", "--target", spec, "--ops", "10",
		"--sql-write", "UPDATE t SET token = :token WHERE id = :resource; UPDATE t SET value = :value WHERE id = :resource",
		"--sql-read", "SELECT value, token FROM t WHERE id = :resource")
	assert.Equal(t, exitError, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stderr, "--sql-write: 2 statements")
}

// TestSignalsInterrupt: SIGINT and SIGTERM stop a run early; it reports
// INTERRUPTED and which signal stopped it, exits 2, and its history reads
// back.
func TestSignalsInterrupt(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			cmd := startLongRun(t, dir)
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, exitInconclusive, exit.ExitCode())
			summary, err := os.ReadFile(filepath.Join(dir, "s", "latest", "summary.txt"))
			require.NoError(t, err)
			assert.Contains(t, string(summary), "verdict     INTERRUPTED:")
			assert.Contains(t, string(summary), "the run was stopped early: "+sig.String()+" signal received;", "the summary says which signal")
			stored, err := os.ReadFile(filepath.Join(dir, "s", "latest", "result.json"))
			require.NoError(t, err)
			assert.Contains(t, string(stored), `"stopped_because": "`+sig.String()+` signal received"`)
			r := fencecheck(t, dir, "check", "s/latest/history.jsonl")
			assert.NotEqual(t, exitError, r.code, fmt.Sprintf("the history reads back:\n%s%s", r.stdout, r.stderr))
		})
	}
}
