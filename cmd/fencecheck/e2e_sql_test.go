package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// sqlEngine is a database the end-to-end tests can run against: SQLite
// always, PostgreSQL and MariaDB/MySQL whenever their server answers (see
// testdb).
type sqlEngine struct {
	name   string
	server *testdb.Server // nil for SQLite
}

var (
	postgresEngine = sqlEngine{"postgres", testdb.Postgres()}
	sqlEngines     = []sqlEngine{{"sqlite", nil}, postgresEngine, {"mysql", testdb.MySQL()}}
)

func (e sqlEngine) spec(t *testing.T, dir string) string {
	t.Helper()
	if e.server == nil {
		return "sqlite://" + filepath.Join(dir, "results.db")
	}
	spec, skip := e.server.DSN()
	if skip != "" {
		t.Skip(skip)
	}
	return spec
}

func uniqueTable(t *testing.T) string {
	t.Helper()
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	return "results_" + hex.EncodeToString(b[:])
}

// ownStatements is a user's table and statements, as a service that keeps
// its results in SQL would have them: rows created up front with token 0,
// and an UPDATE guarded by the token. first_token is a column the service
// also has, which a buggy guard compares instead of token.
func ownStatements(table, write string) []string {
	return []string{
		"--sql-setup", "DROP TABLE IF EXISTS " + table,
		"--sql-setup", "CREATE TABLE " + table + " (id VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL, first_token BIGINT NOT NULL, value TEXT)",
		"--sql-setup", "INSERT INTO " + table + " (id, token, first_token) VALUES ('r0', 0, 0), ('r1', 0, 0), ('r2', 0, 0), ('r3', 0, 0)",
		"--sql-write", fmt.Sprintf(write, table),
		"--sql-read", "SELECT value, token FROM " + table + " WHERE id = :resource",
		"--sql-teardown", "DROP TABLE " + table,
	}
}

// TestRunOwnStatements: with a user's own statements, a guard that is
// subtly wrong is caught (exit 1), and the correct one on the same table
// holds (exit 0), on every engine.
func TestRunOwnStatements(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		write    string
		code     int
		contains string
	}{
		{"correct guard holds",
			"UPDATE %s SET value = :value, token = :token WHERE id = :resource AND token < :token", 0, "HELD"},
		{"equal tokens let through under strict",
			"UPDATE %s SET value = :value, token = :token WHERE id = :resource AND token <= :token", 1, "accepted twice"},
		{"the wrong column compared",
			"UPDATE %s SET value = :value, token = :token WHERE id = :resource AND first_token < :token", 1, "VIOLATED"},
	}
	for _, e := range sqlEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel() // each on a table of its own
					dir := schema.TempDir(t)
					table := uniqueTable(t)
					args := append([]string{"run", "--target", e.spec(t, dir), "--workers", "8", "--ops", "600", "--op-timeout", "2s",
						"--lease-ttl", "30ms", "--nemesis", "pause,delay", "--seed", "1", "--store", "s"},
						ownStatements(table, tc.write)...)
					r := fencecheck(t, dir, args...)
					assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
					assert.Contains(t, r.stdout, tc.contains)
					assert.Contains(t, r.stdout, "(own statements)")
				})
			}
		})
	}
}

// TestRunBuiltinSQLModes runs the built-in modes through the command on
// SQLite: the atomic upsert holds, check-then-set is found.
func TestRunBuiltinSQLModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		code int
	}{{"atomic", 0}, {"check-then-set", 1}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			r := fencecheck(t, dir, "run", "--target", "sqlite://"+filepath.Join(dir, "x.db"), "--sql-mode", tc.mode,
				"--ops", "600", "--op-timeout", "2s", "--lease-ttl", "30ms", "--seed", "2", "--store", "s")
			assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			again := fencecheck(t, dir, "check", "s/latest/history.jsonl")
			assert.Equal(t, tc.code, again.code, "the stored history agrees: %s", again.stdout)
		})
	}
}

// TestRunSQLErrors covers what must fail fast with exit 3, naming the
// target without its password.
func TestRunSQLErrors(t *testing.T) {
	t.Parallel()
	cases := []refusal{
		{"unreachable PostgreSQL", []string{"--target", "postgres://bob:s3cretpw@127.0.0.1:1/test"},
			"open postgres://bob:xxxxx@127.0.0.1:1/test: failed to connect"},
		{"unreachable MySQL", []string{"--target", "mysql://bob:s3cretpw@127.0.0.1:1/test"},
			"open mysql://bob:xxxxx@127.0.0.1:1/test: dial tcp 127.0.0.1:1: connect: connection refused"},
		{"unknown placeholder", []string{"--target", "sqlite:///tmp/never-opened.db", "--sql-write", "UPDATE t SET v = :vaule", "--sql-read", "SELECT v FROM t"},
			"--sql-write: unknown placeholder :vaule"},
		{"write without read", []string{"--target", "sqlite:///tmp/never-opened.db", "--sql-write", "UPDATE t SET v = :value"},
			"need both a write and a read"},
		{"mode and own statements", []string{"--target", "sqlite:///tmp/never-opened.db", "--sql-mode", "atomic", "--sql-write", "UPDATE t SET v = :value", "--sql-read", "SELECT v FROM t"},
			"exclude each other"},
		{"unknown mode", []string{"--target", "sqlite:///tmp/never-opened.db", "--sql-mode", "careful"}, `unknown sql-mode "careful"`},
		{"SQL flags on a memory target", []string{"--target", "memory://fenced", "--sql-mode", "atomic"}, "--sql-* flags need a SQL target"},
	}
	runRefused(t, cases)
}

// TestRunNeverPrintsThePassword runs against PostgreSQL with a password in
// the spec (trust authentication ignores it) and looks for it everywhere a
// run writes.
func TestRunNeverPrintsThePassword(t *testing.T) {
	t.Parallel()
	spec := postgresEngine.spec(t, "")
	withPassword := strings.Replace(spec, "postgres://postgres@", "postgres://postgres:s3cretpw@", 1)
	if withPassword == spec {
		t.Skipf("%s %q has no postgres://postgres@ to add a password to", testdb.Postgres().Env, spec)
	}
	dir := schema.TempDir(t)
	r := fencecheck(t, dir, "run", "--target", withPassword, "--ops", "300", "--op-timeout", "2s", "--lease-ttl", "30ms", "--seed", "1", "--store", "s", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout+r.stderr, "s3cretpw")
	assert.Contains(t, r.stdout, "postgres:xxxxx@")
	assertNowhereInStore(t, filepath.Join(dir, "s"), "s3cretpw")
}

// upserts are each engine's token-guarded upsert of a user's table, with
// the comparison that accepts left open: "> " is correct under strict.
var upserts = map[string]string{
	"mysql": "INSERT INTO %[1]s (id, token, value) VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE " +
		"value = IF(VALUES(token) %[2]s token, VALUES(value), value), token = IF(VALUES(token) %[2]s token, VALUES(token), token)",
	"postgres": "INSERT INTO %[1]s AS cur (id, token, value) VALUES (:resource, :token, :value) " +
		"ON CONFLICT (id) DO UPDATE SET token = EXCLUDED.token, value = EXCLUDED.value WHERE EXCLUDED.token %[2]s cur.token",
	"sqlite": "INSERT INTO %[1]s (id, token, value) VALUES (:resource, :token, :value) " +
		"ON CONFLICT (id) DO UPDATE SET token = excluded.token, value = excluded.value WHERE excluded.token %[2]s %[1]s.token",
}

// TestRunOwnUpsert: a user's own upsert, as they would type it: a correct
// token-guarded upsert as the --sql-write, with the target spec as
// given (for MySQL no clientFoundRows), holds (exit 0), and the same upsert
// guarded with >= under strict is found (exit 1), on every engine. A
// MySQL spec that asks for clientFoundRows=true, which would read every
// rejection of the upsert as accepted, is refused (exit 3).
func TestRunOwnUpsert(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		cmp   string
		param string
		code  int
		want  string
	}{
		{"correct guard holds", ">", "", 0, "HELD"},
		{">= under strict is found", ">=", "", 1, "accepted twice"},
		{"clientFoundRows=true is refused", ">", "clientFoundRows=true", 3, "clientFoundRows=true in the target spec makes an INSERT … ON DUPLICATE KEY UPDATE"},
	}
	for _, e := range sqlEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range cases {
				if tc.param != "" && e.name != "mysql" {
					continue
				}
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel() // each on a table of its own
					dir := schema.TempDir(t)
					spec := e.spec(t, dir)
					if tc.param != "" {
						sep := "?"
						if strings.Contains(spec, "?") {
							sep = "&"
						}
						spec += sep + tc.param
					}
					table := uniqueTable(t)
					r := fencecheck(t, dir, "run", "--target", spec, "--workers", "8", "--ops", "600", "--op-timeout", "2s",
						"--lease-ttl", "30ms", "--nemesis", "pause,delay", "--seed", "1", "--store", "s",
						"--sql-setup", "DROP TABLE IF EXISTS "+table,
						"--sql-setup", "CREATE TABLE "+table+" (id VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL, value TEXT)",
						"--sql-write", fmt.Sprintf(upserts[e.name], table, tc.cmp),
						"--sql-read", "SELECT value, token FROM "+table+" WHERE id = :resource",
						"--sql-teardown", "DROP TABLE "+table)
					assert.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
					assert.Contains(t, r.stdout+r.stderr, tc.want)
				})
			}
		})
	}
}

// TestRunTeardownFailureWarns: a --sql-teardown statement that fails is
// a warning on stderr and in result.json and summary.txt, naming the
// statement; the verdict and the exit code are those of the run.
func TestRunTeardownFailureWarns(t *testing.T) {
	t.Parallel()
	for _, e := range sqlEngines {
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			table, missing := uniqueTable(t), "DROP TABLE "+uniqueTable(t)
			args := append([]string{"run", "--target", e.spec(t, dir), "--ops", "100", "--op-timeout", "2s",
				"--lease-ttl", "30ms", "--nemesis", "pause,delay", "--seed", "1", "--store", "s"},
				ownStatements(table, "UPDATE %s SET value = :value, token = :token WHERE id = :resource AND token < :token")...)
			r := fencecheck(t, dir, append(args, "--sql-teardown", missing)...)
			assert.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "HELD")
			want := fmt.Sprintf("tear-down statement %q failed on ", missing)
			assert.Contains(t, r.stderr, "fencecheck: warning: tear down ")
			assert.Contains(t, r.stderr, want)
			result, err := os.ReadFile(filepath.Join(dir, "s", "latest", "result.json"))
			require.NoError(t, err)
			var res struct{ Warnings []string }
			require.NoError(t, json.Unmarshal(result, &res))
			require.Len(t, res.Warnings, 1, "the table's own DROP ran")
			assert.Contains(t, res.Warnings[0], want)
			summary, err := os.ReadFile(filepath.Join(dir, "s", "latest", "summary.txt"))
			require.NoError(t, err)
			assert.Contains(t, string(summary), "warning     tear down ")
		})
	}
}

// refusal is a run that must fail fast with exit 3: its arguments after
// run --store, and what its error must say.
type refusal struct {
	name   string
	args   []string
	stderr string
}

// runRefused runs each refusal and checks it exits 3 with its error,
// never printing the password the cases put in their specs (s3cretpw).
func runRefused(t *testing.T, cases []refusal) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := fencecheck(t, schema.TempDir(t), append([]string{"run", "--store", "s"}, tc.args...)...)
			assert.Equal(t, 3, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.NotContains(t, r.stdout+r.stderr, "s3cretpw")
		})
	}
}
