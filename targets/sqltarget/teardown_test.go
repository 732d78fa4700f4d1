package sqltarget

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/testsupport/testdb"
)

// TestTeardownAfterServerEndedConnections: the server ends every
// connection of the run's pool between the last write and the tear-down
// (as a restart or a fault would), and the tear-down still drops the
// table rather than failing on a dead idle connection.
func TestTeardownAfterServerEndedConnections(t *testing.T) {
	t.Parallel()
	spec, skip := testdb.Postgres().DSN()
	if skip != "" {
		t.Skip(skip)
	}
	app := "fencecheck-" + strings.TrimPrefix(newTableName(), "fencecheck_")
	spec += "&application_name=" + app
	ctx := context.Background()
	tgt, err := Open(ctx, spec, DefaultOptions())
	require.NoError(t, err)
	t.Cleanup(func() { _ = tgt.Close() })
	require.NoError(t, tgt.Setup(ctx))
	admin := sideDB(t, "pgx", spec)
	t.Cleanup(func() { _, _ = admin.Exec("DROP TABLE IF EXISTS " + tgt.Table()) })
	_, err = tgt.Write(ctx, "r", 1, "v")
	require.NoError(t, err)

	var ended int
	require.NoError(t, admin.QueryRow(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND pid <> pg_backend_pid()`, app).Scan(&ended))
	require.Positive(t, ended, "the pool's connections")
	require.Eventually(t, func() bool {
		var left int
		require.NoError(t, admin.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND pid <> pg_backend_pid()`, app).Scan(&left))
		return left == 0
	}, 10*time.Second, 5*time.Millisecond, "the ended backends are gone")

	require.NoError(t, tgt.Teardown(ctx))
	var tables int
	require.NoError(t, admin.QueryRow("SELECT count(*) FROM pg_tables WHERE tablename = $1", tgt.Table()).Scan(&tables))
	assert.Zero(t, tables, "table %s left behind", tgt.Table())
}

// TestTeardownSaysWhatIsLeft breaks the tear-down on purpose: another
// session holds a lock on the scratch table, so that the DROP waits past
// its deadline; or the user's tear-down statement fails. The error names
// the table and the statement that removes it, or the statement that
// failed, and every statement still runs.
func TestTeardownSaysWhatIsLeft(t *testing.T) {
	t.Parallel()
	lockers := map[string]struct {
		driver string
		lock   func(table string) string
	}{
		"sqlite":   {"sqlite", func(string) string { return "BEGIN IMMEDIATE" }},
		"postgres": {"pgx", func(table string) string { return "BEGIN; LOCK TABLE " + table + " IN ACCESS SHARE MODE" }},
		// A read lock holds the table's metadata lock, which DROP waits for.
		"mysql": {"mysql", func(table string) string { return "LOCK TABLES " + table + " READ" }},
	}
	unlock := map[string]string{"sqlite": "ROLLBACK", "postgres": "ROLLBACK", "mysql": "UNLOCK TABLES"}
	for _, e := range engines {
		t.Run(e.name+"/table", func(t *testing.T) {
			l, ok := lockers[e.name]
			if !ok {
				t.Skip("no second session can hold this engine's table from here")
			}
			t.Parallel()
			spec := e.spec(t)
			o := DefaultOptions()
			o.Timeout = 300 * time.Millisecond
			tgt := openNoTeardown(t, spec, o)
			t.Cleanup(func() { _, _ = tgt.db.Exec("DROP TABLE IF EXISTS " + tgt.Table()) }) // after the lock is gone
			conn := sideConn(t, l.driver, spec)
			_, err := conn.ExecContext(context.Background(), l.lock(tgt.Table()))
			require.NoError(t, err)

			err = tgt.Teardown(context.Background())
			require.Error(t, err, "the DROP waited for the lock past its deadline")
			t.Log(err)
			assert.Contains(t, err.Error(), "table "+tgt.Table()+" was left behind in ")
			assert.Contains(t, err.Error(), "remove it with: DROP TABLE IF EXISTS "+tgt.Table())

			_, err = conn.ExecContext(context.Background(), unlock[e.name])
			require.NoError(t, err)
			require.NoError(t, tgt.Teardown(context.Background()), "with the lock gone")
		})
		t.Run(e.name+"/statement", func(t *testing.T) {
			t.Parallel()
			table := newTableName()
			missing := "DROP TABLE " + newTableName()
			st := Statements{
				Setup:    []string{"CREATE TABLE " + table + " (resource VARCHAR(100) PRIMARY KEY, token BIGINT, value TEXT)"},
				Write:    []string{"INSERT INTO " + table + " (resource, token, value) VALUES (:resource, :token, :value)"},
				Read:     "SELECT value, token FROM " + table + " WHERE resource = :resource",
				Teardown: []string{missing, "DROP TABLE " + table},
			}
			tgt := openNoTeardown(t, e.spec(t), ownOptions(st))
			t.Cleanup(func() { _, _ = tgt.db.Exec("DROP TABLE IF EXISTS " + table) }) // should the test fail
			err := tgt.Teardown(context.Background())
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("tear-down statement %q failed on ", missing))
			assert.Contains(t, err.Error(), "whatever it was meant to remove is still there")
			assert.NotContains(t, err.Error(), "DROP TABLE "+table, "the statement after the failed one ran")
			_, err = tgt.Write(context.Background(), "r0", 1, "v")
			assert.Error(t, err, "the second statement dropped the table")
		})
	}
}

// sideDB opens a pool of its own on the target's database.
func sideDB(t *testing.T, driver, spec string) *sql.DB {
	t.Helper()
	dsn := spec
	if driver == "sqlite" {
		dsn = strings.TrimPrefix(spec, "sqlite://")
	}
	db, err := sql.Open(driver, dsn)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// sideConn is one connection of its own on the target's database: a
// second session.
func sideConn(t *testing.T, driver, spec string) *sql.Conn {
	t.Helper()
	db := (*sql.DB)(nil)
	if driver == "mysql" { // a mysql:// spec is not the driver's DSN: let Open translate it
		other, err := Open(context.Background(), spec, DefaultOptions())
		require.NoError(t, err)
		t.Cleanup(func() { _ = other.Close() })
		db = other.db
	} else {
		db = sideDB(t, driver, spec)
	}
	conn, err := db.Conn(context.Background())
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}
