package sqltarget

import (
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// postgres is PostgreSQL through pgx's database/sql driver. The atomic
// upsert reports its result with RETURNING: one row when it inserted or
// when the DO UPDATE's WHERE held, none otherwise. ON CONFLICT DO UPDATE
// locks the conflicting row and evaluates the WHERE on its newest version,
// so the comparison and the write are one step even at READ COMMITTED,
// and two first writes to a missing row never both insert.
//
// Without RETURNING, the count is the command tag's: an upsert counts 1
// when it inserted or its DO UPDATE's WHERE held and 0 otherwise, an
// UPDATE the rows its WHERE matched (changed or not), a MERGE the rows it
// inserted, updated or deleted (a matched row no WHEN clause applies to is
// not counted). A CALL's tag carries no count, so it cannot be the write.
//
// check-then-set runs in a transaction at the default isolation (READ
// COMMITTED) with a plain SELECT: the snapshot it compares against can be
// out of date by the time its unguarded upsert runs.
var postgres = dialect{
	name:   "postgres",
	syntax: placeholders.PostgreSQL(),
	create: "CREATE TABLE %[1]s (resource TEXT PRIMARY KEY, token BIGINT NOT NULL, value TEXT NOT NULL)",
	atomic: "INSERT INTO %[1]s AS cur (resource, token, value) VALUES (:resource, :token, :value) " +
		"ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, value = EXCLUDED.value " +
		"WHERE EXCLUDED.token %[2]s cur.token RETURNING cur.token",
	read:      "SELECT value, token FROM %[1]s WHERE resource = :resource",
	checkRead: "SELECT token FROM %[1]s WHERE resource = :resource",
	set: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, :token, :value) " +
		"ON CONFLICT (resource) DO UPDATE SET token = EXCLUDED.token, value = EXCLUDED.value",
	plain: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, 0, :value) " +
		"ON CONFLICT (resource) DO UPDATE SET value = EXCLUDED.value",
	checkInTx: true,
	traces:    true,
	counting: func(s shape) (counting, error) {
		if s.kind == "CALL" {
			return counting{}, errors.New("a CALL reports no count of rows on PostgreSQL, so it cannot say whether the write was accepted; " +
				"write the guarded INSERT or UPDATE itself (with RETURNING if you like)")
		}
		return s.plainCounting("PostgreSQL", "INSERT", "UPDATE", "DELETE", "MERGE")
	},
}

// openPostgres opens a pool for a postgres:// or postgresql:// URL, which
// pgx parses itself (including sslmode and the other libpq parameters).
//
// Statements are sent in pgx's exec mode unless the URL names another
// (default_query_exec_mode): every statement of an operation carries its
// traceparent comment (trace.go), so no two texts are alike, and pgx's
// default mode, which prepares each new text as a named statement and
// caches it, would spend a round trip preparing every statement (and
// more deallocating the ones pushed out of its cache) for a statement
// that never runs again. Exec mode sends each statement in one round
// trip with its arguments as untyped text, whose types the server infers
// from the statement as it does when preparing. On BenchmarkSQLPlainLoop/
// postgres, whose statements carry the harness's trace comments, it took
// 0.51–0.99 of the default mode's time per operation in four alternating
// pairs (median 0.69), with 44 allocations per operation instead of 66.
func openPostgres(spec string, o Options) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(spec)
	if err != nil {
		return nil, err
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = o.Timeout
	}
	if !namesExecMode(spec) {
		cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	db := stdlib.OpenDB(*cfg)
	sizePool(db, poolSize(o.Workers))
	return db, nil
}

// namesExecMode reports whether a PostgreSQL URL or DSN sets pgx's
// default_query_exec_mode itself.
func namesExecMode(spec string) bool {
	c, err := pgconn.ParseConfig(spec)
	if err != nil {
		return false
	}
	_, ok := c.RuntimeParams["default_query_exec_mode"]
	return ok
}
