package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/docs/schema"
	"github.com/fencecheck/fencecheck/histories"
	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// runTwice runs the same command twice, as a user who runs a documented
// command again does, and asserts both verdicts, returning the second
// run's output.
func runTwice(t *testing.T, dir string, want int, args ...string) result {
	t.Helper()
	var second result
	for i := range 2 {
		r := fencecheck(t, dir, args...)
		require.Equal(t, want, r.code, "run %d:\nstdout:\n%s\nstderr:\n%s", i+1, r.stdout, r.stderr)
		second = r
	}
	return second
}

// TestSecondRunHolds is the second-run case users hit: a durable receiver
// (the reference receiver with a SQLite store, over HTTP and started by
// --exec; a SQL table of the user's own that keeps its rows) tested
// twice. Both runs hold: the first leaves state behind, and the second
// either does not meet it (the run names its resources for itself) or
// observes it and starts from it (fixed names).
func TestSecondRunHolds(t *testing.T) {
	t.Parallel()
	run := []string{"run", "--workers", "8", "--ops", "600", "--op-timeout", "2s", "--lease-ttl", "30ms", "--nemesis", "pause,delay", "--store", "s"}
	t.Run("http, sqlite store, run-named resources", func(t *testing.T) {
		t.Parallel()
		dir := schema.TempDir(t)
		base := startReceiver(t, "--store", "sqlite:"+filepath.Join(dir, "r.db"))
		r := runTwice(t, dir, 0, append(run, "--target", base, "--seed", "7")...)
		assert.Contains(t, r.stdout, "HELD")
	})
	t.Run("http, sqlite store, fixed names", func(t *testing.T) {
		t.Parallel()
		dir := schema.TempDir(t)
		base := startReceiver(t, "--store", "sqlite:"+filepath.Join(dir, "r.db"))
		r := runTwice(t, dir, 0, append(run, "--target", base, "--seed", "7", "--resource-names", "r0,r1,r2,r3")...)
		assert.Contains(t, r.stdout, "before      4 resources held state from before the run")
	})
	t.Run("exec, sqlite store reused", func(t *testing.T) {
		t.Parallel()
		dir := schema.TempDir(t)
		db := filepath.Join(dir, "r.db")
		for i := range 2 {
			addr := freeAddr(t)
			r := fencecheck(t, dir, append(run, "--target", "http://"+addr, "--seed", "3", "--resource-names", "r0,r1",
				"--exec", fmt.Sprintf("%s receiver --listen %s --store sqlite:%s", fencecheckBinary, addr, db))...)
			require.Equal(t, 0, r.code, "run %d:\n%s%s", i+1, r.stdout, r.stderr)
			if i == 1 {
				assert.Contains(t, r.stdout, "before      2 resources held state from before the run")
			}
		}
	})
	for _, e := range sqlEngines {
		t.Run("own statements keeping their rows, "+e.name, func(t *testing.T) {
			t.Parallel()
			dir := schema.TempDir(t)
			table := uniqueTable(t)
			// The statements of docs/sql-receivers.md's examples, without
			// a set-up that empties the table: the second run meets the
			// first one's rows.
			args := append(run, "--target", e.spec(t, dir), "--seed", "1",
				"--sql-setup", "CREATE TABLE IF NOT EXISTS "+table+" (id VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL, value TEXT)",
				"--sql-write", "INSERT INTO "+table+" (id, token, value) VALUES (:resource, :token, :value) "+upsert(e.name, table),
				"--sql-read", "SELECT value, token FROM "+table+" WHERE id = :resource")
			t.Cleanup(func() { dropTable(t, e.spec(t, dir), table) })
			r := runTwice(t, dir, 0, args...)
			assert.Contains(t, r.stdout, "before      4 resources held state from before the run")
		})
	}
}

// upsert is a correct token-guarded upsert's conflict clause for engine.
func upsert(engine, table string) string {
	if engine == "mysql" {
		return "ON DUPLICATE KEY UPDATE value = IF(VALUES(token) > token, VALUES(value), value), token = GREATEST(token, VALUES(token))"
	}
	return "ON CONFLICT (id) DO UPDATE SET value = excluded.value, token = excluded.token WHERE " + table + ".token < excluded.token"
}

// dropTable drops a table a test made on a shared server.
func dropTable(t *testing.T, spec, table string) {
	t.Helper()
	ctx := context.Background()
	o := sqltarget.DefaultOptions()
	o.Mode, o.Statements = "", sqltarget.Statements{
		Write: []string{"UPDATE " + table + " SET token = :token, value = :value WHERE id = :resource"}, Read: "SELECT :resource",
		Teardown: []string{"DROP TABLE IF EXISTS " + table}}
	db, err := sqltarget.Open(ctx, spec, o)
	require.NoError(t, err)
	defer db.Close()
	assert.NoError(t, db.Teardown(ctx))
}

// TestPriorStateWithoutTokensIsRefused: a table that keeps its rows, read
// by a statement that returns no token: the second run cannot know which
// tokens the receiver must reject, says so and exits 3 before any write.
func TestPriorStateWithoutTokensIsRefused(t *testing.T) {
	t.Parallel()
	dir := schema.TempDir(t)
	table := uniqueTable(t)
	args := []string{"run", "--ops", "200", "--nemesis", "none", "--min-stale", "0", "--seed", "1", "--store", "s",
		"--target", "sqlite://" + filepath.Join(dir, "r.db"),
		"--sql-setup", "CREATE TABLE IF NOT EXISTS " + table + " (id VARCHAR(64) PRIMARY KEY, token BIGINT NOT NULL, value TEXT)",
		"--sql-write", "INSERT INTO " + table + " (id, token, value) VALUES (:resource, :token, :value) " + upsert("sqlite", table),
		"--sql-read", "SELECT value FROM " + table + " WHERE id = :resource"}
	first := fencecheck(t, dir, args...)
	require.Equal(t, 0, first.code, first.stdout+first.stderr)
	second := fencecheck(t, dir, args...)
	assert.Equal(t, exitError, second.code, second.stdout+second.stderr)
	assert.Contains(t, second.stderr, "observe r0 before the run: it already holds")
	assert.Contains(t, second.stderr, "the receiver reports no token on reads")
	h, err := histories.Read(t.Context(), histories.Source{Path: filepath.Join(newestRun(t, filepath.Join(dir, "s")), "history.jsonl")})
	require.NoError(t, err)
	for _, op := range h.Expand(nil) {
		assert.False(t, op.IsWrite(), "no worker wrote before the refusal")
	}
}
