package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
)

// txTable is a user's table for the transaction tests, created by the
// run's set-up with rows for r0 … r3 at token 0 and dropped by its
// tear-down; extra are more set-up statements (placeholder %[1]s is the
// table).
func txTable(table string, extra ...string) []string {
	args := []string{
		"--sql-setup", "DROP TABLE IF EXISTS " + table,
		"--sql-setup", "CREATE TABLE " + table + " (id VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL, value TEXT)",
		"--sql-setup", "INSERT INTO " + table + " (id, token) VALUES ('r0', 0), ('r1', 0), ('r2', 0), ('r3', 0)",
	}
	for _, e := range extra {
		args = append(args, "--sql-setup", strings.ReplaceAll(e, "%[1]s", table))
	}
	return append(args,
		"--sql-read", "SELECT value, token FROM "+table+" WHERE id = :resource",
		"--sql-teardown", "DROP TABLE "+table)
}

// txRun runs fencecheck on a SQL engine with the delay fault open from
// the start (scripted, so that the outcome does not depend on how fast
// the machine is: every write that passes its guard may be held in the
// window until a newer token has been accepted), the given statements
// with %[1]s for a run-unique table, and returns the result and the run's
// directory.
func txRun(t *testing.T, e sqlEngine, setup []string, stmts ...string) (result, string) {
	t.Helper()
	dir := schema.TempDir(t)
	table := uniqueTable(t)
	args := []string{"run", "--target", e.spec(t, dir), "--workers", "8", "--ops", "300", "--op-timeout", "2s",
		"--lease-ttl", "30ms", "--nemesis", "pause,delay", "--nemesis-script", "0s:+pause,0s:+delay", "--seed", "1", "--store", "s"}
	for _, s := range stmts {
		args = append(args, strings.ReplaceAll(s, "%[1]s", table))
	}
	r := fencecheck(t, dir, append(args, txTable(table, setup...)...)...)
	t.Logf("fencecheck %s\nexit %d\n%s%s", strings.Join(args[1:], " "), r.code, summaryLines(r.stdout), r.stderr)
	return r, filepath.Join(dir, "s", "latest")
}

// summaryLines are the summary's lines that say what happened: the
// operations, the first errors and the verdict, for the log.
func summaryLines(s string) string {
	var b strings.Builder
	errs := false
	for line := range strings.Lines(s) {
		head, _, _ := strings.Cut(line, " ")
		if head == "operations" || head == "verdict" || head == "errors" || errs && head == "" {
			b.WriteString(line)
		}
		errs = head == "errors" || errs && head == ""
	}
	return b.String()
}

// readCompareUpdate is an application's own check-then-set: read and
// compare in a guard, then update without comparing again.
const (
	rcuGuard  = "SELECT 1 FROM %[1]s WHERE id = :resource AND token < :token"
	rcuUpdate = "UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource"
)

// TestRunSQLGuardedTransaction: an application's read-compare-update as
// a guarded transaction (--sql-guard, then --sql-write) at READ COMMITTED
// is found when the delay fault holds a write between its guard and its
// update, and the same guard with FOR UPDATE, which locks the row until
// COMMIT, holds: a user learns which of the two their code is. On
// PostgreSQL at READ COMMITTED, and on MariaDB at its default,
// REPEATABLE READ.
func TestRunSQLGuardedTransaction(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, guard string
		code        int
		want        string
	}{
		{"plain guard is found", rcuGuard, 1, "VIOLATED"},
		{"FOR UPDATE holds", rcuGuard + " FOR UPDATE", 0, "HELD"},
	}
	for _, e := range []struct {
		engine    sqlEngine
		isolation string
	}{{postgresEngine, "read-committed"}, {sqlEngines[2], ""}} {
		t.Run(e.engine.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					stmts := []string{"--sql-guard", tc.guard, "--sql-write", rcuUpdate}
					if e.isolation != "" {
						stmts = append(stmts, "--sql-isolation", e.isolation)
					}
					r, run := txRun(t, e.engine, nil, stmts...)
					assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
					assert.Contains(t, r.stdout, tc.want)
					history, err := os.ReadFile(filepath.Join(run, "history.jsonl"))
					require.NoError(t, err)
					assert.Contains(t, string(history), "between its check and its write", "the delay fault held writes between guard and update")
				})
			}
		})
	}
}

// TestRunSQLSerializationFailure: the same unlocked read-compare-update
// at SERIALIZABLE on PostgreSQL. A write held between its guard and its
// update while a newer one commits fails with a serialization failure
// (40001) at its UPDATE: the engine rolled it back, so it is recorded as
// definitely not applied (failed), and the run holds.
func TestRunSQLSerializationFailure(t *testing.T) {
	t.Parallel()
	r, run := txRun(t, postgresEngine, nil, "--sql-guard", rcuGuard, "--sql-write", rcuUpdate, "--sql-isolation", "serializable")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "HELD")
	m := regexp.MustCompile(`(\d+) failed\)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	failed, err := strconv.Atoi(m[1])
	require.NoError(t, err)
	assert.Positive(t, failed, "serialization failures are recorded as failed writes:\n%s", r.stdout)
	history, err := os.ReadFile(filepath.Join(run, "history.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(history), "SQLSTATE 40001", "the failed writes are serialization failures")
}

// rejectedLog is a receiver whose write returns the rows it did NOT
// apply: a guarded update, and an insert into a log of rejected writes
// that returns the logged row. It is correct, and its rows mean the
// opposite of what RETURNING usually means.
const rejectedLog = "WITH applied AS (UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource AND token < :token RETURNING id) " +
	"INSERT INTO %[1]s_rejected (id, token) SELECT :resource, :token WHERE NOT EXISTS (SELECT 1 FROM applied) RETURNING id"

// TestRunSQLReturnsNoRow: with --sql-accepted returns-no-row the correct
// receiver above holds; without it, fencecheck reads its returned rows as
// RETURNING usually means (a row returned: accepted) and so judges it
// backwards, a false VIOLATED. That is why the rule must be said.
func TestRunSQLReturnsNoRow(t *testing.T) {
	t.Parallel()
	setup := []string{"DROP TABLE IF EXISTS %[1]s_rejected", "CREATE TABLE %[1]s_rejected (id VARCHAR(64) NOT NULL, token BIGINT NOT NULL)"}
	cases := []struct {
		name string
		rule []string
		code int
		want string
	}{
		{"returns-no-row holds", []string{"--sql-accepted", "returns-no-row"}, 0, "HELD"},
		{"without the rule judged backwards", nil, 1, "VIOLATED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stmts := append([]string{"--sql-write", rejectedLog, "--sql-teardown", "DROP TABLE %[1]s_rejected"}, tc.rule...)
			r, _ := txRun(t, postgresEngine, setup, stmts...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.want)
		})
	}
}

// TestRunSQLAcceptedColumn: a boolean column named accepted in the last
// statement's result decides, with no flag: on PostgreSQL a query over a
// guarded update (correct, holds; and one that always says true, found),
// on MariaDB a transaction whose second statement reports ROW_COUNT() of
// the guarded update.
func TestRunSQLAcceptedColumn(t *testing.T) {
	t.Parallel()
	const pgUpdate = "WITH u AS (UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource AND token < :token RETURNING 1) "
	cases := []struct {
		name   string
		engine sqlEngine
		writes []string
		code   int
		want   string
	}{
		{"postgres query over a guarded update holds", postgresEngine,
			[]string{pgUpdate + "SELECT EXISTS (SELECT 1 FROM u) AS accepted"}, 0, "HELD"},
		{"postgres always accepted is found", postgresEngine,
			[]string{pgUpdate + "SELECT true AS accepted FROM (SELECT count(*) FROM u) AS c"}, 1, "VIOLATED"},
		{"mysql ROW_COUNT in the same transaction holds", sqlEngines[2],
			[]string{"UPDATE %[1]s SET value = :value, token = :token WHERE id = :resource AND token < :token", "SELECT ROW_COUNT() > 0 AS accepted"}, 0, "HELD"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var stmts []string
			for _, w := range tc.writes {
				stmts = append(stmts, "--sql-write", w)
			}
			r, _ := txRun(t, tc.engine, nil, stmts...)
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.want)
		})
	}
}
