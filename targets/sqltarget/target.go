// Package sqltarget tests receivers that keep the fenced value in a SQL
// database, through database/sql: SQLite (modernc.org/sqlite, pure Go, the
// embedded default), PostgreSQL (pgx) and MySQL/MariaDB
// (go-sql-driver/mysql). One file per engine holds its dialect.
//
//	worker ──Write(resource, token, value)──> statement(s) ──> database
//	                                          │
//	          atomic: one upsert guarded by the token
//	          check-then-set: SELECT token; compare in Go; [window]; unguarded upsert
//	          your own: --sql-write with :resource, :token, :value, alone in autocommit,
//	            or a transaction: [guard; window] write; [window] write …; COMMIT (tx.go)
//
// How a write's result becomes an outcome (the same rule for the built-in
// statements and the user's own, unless Statements.Accepted says
// otherwise: accepted.go) depends on the statement's shape, read
// before anything is sent (counting.go): a statement with a RETURNING
// clause of its own is accepted when it returns a row and rejected when it
// returns none; an INSERT, UPDATE, DELETE (and REPLACE, MERGE where the
// engine has them) is accepted when it affected a row and rejected when it
// affected none, with MySQL's INSERT … ON DUPLICATE KEY UPDATE counted as
// MySQL means it (1 inserted, 2 updated, 0 left as it was) on connections
// that count that way (mysql.go). A shape whose count would not say
// whether the write was accepted (a SELECT, several statements, a
// PostgreSQL CALL, …) is refused. An error is an unknown outcome unless
// the statement never left this process (errors.go).
//
// The built-in modes write to a scratch table with a unique name, created
// by Setup and dropped by Teardown, so that runs never collide. Every
// statement runs under its own deadline (Options.Timeout).
package sqltarget

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/internal/unique"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// Target is a receiver backed by a SQL database.
type Target struct {
	db      *sql.DB
	release func() error // frees what Open kept besides the pool
	turns   writeTurns   // SQLite's one writer at a time; nil for a server
	log     *driverLog   // what the driver logs on its own
	d       dialect
	name    string // the redacted spec
	secrets []string
	timeout time.Duration
	mode    Mode // "" for the user's own statements
	table   string

	acceptEqual bool
	write       placeholders.Query // the one-statement write (atomic or the user's), or a transaction's last
	count       counting           // how write's count becomes an outcome
	// The user's transaction (tx.go): guard (Text "" for none), the
	// statements before write, and the isolation level.
	tx        bool
	guard     placeholders.Query
	before    []placeholders.Query
	iso       Isolation
	read      placeholders.Query
	checkRead placeholders.Query // check-then-set's read
	set       placeholders.Query // check-then-set's update
	plain     placeholders.Query // a write without a token (built-in modes)
	setup     []string
	teardown  []string
	window    func(ctx context.Context, resource string, token uint64)
}

// Schemes lists the target spec schemes Open accepts.
func Schemes() []string { return []string{"sqlite", "postgres", "postgresql", "mysql"} }

// IsSpec reports whether spec names a SQL target.
func IsSpec(spec string) bool {
	scheme, _, ok := strings.Cut(spec, "://")
	if !ok {
		return false
	}
	for _, s := range Schemes() {
		if scheme == s {
			return true
		}
	}
	return false
}

// Open checks the statements, connects to the database spec names and
// makes sure it answers. Specs: sqlite:///path/to.db, sqlite://:memory:,
// postgres://user@127.0.0.1:5432/db (or postgresql://),
// mysql://user:pass@127.0.0.1:3306/db. Errors name the spec with its
// password redacted.
func Open(ctx context.Context, spec string, o Options) (*Target, error) {
	name := redact.Spec(spec)
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	t := &Target{name: name, secrets: redact.Secrets(spec, nil), timeout: o.Timeout, mode: o.Mode,
		acceptEqual: o.AcceptEqual, release: func() error { return nil }}
	t.log = &driverLog{secrets: t.secrets}
	scheme, rest, _ := strings.Cut(spec, "://")
	switch scheme {
	case "sqlite":
		t.d = sqlite
	case "postgres", "postgresql":
		t.d = postgres
	case "mysql":
		t.d = mysqlDialect
	default:
		return nil, fmt.Errorf("open %s: not a SQL target (want one of %v)", name, Schemes())
	}
	if err := t.prepare(o.Statements); err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	if err := t.connect(ctx, scheme, spec, rest, o); err != nil {
		return nil, fmt.Errorf("open %s: %w", name, redact.Error(err, t.secrets))
	}
	return t, nil
}

// prepare translates the statements for the dialect, before anything is
// sent, so that a mistake in them is reported at once.
func (t *Target) prepare(user Statements) error {
	t.setup, t.teardown = user.Setup, user.Teardown
	t.tx, t.iso = user.inTx(), user.Isolation
	var stmts []namedStmt
	if n := len(user.Write); n > 0 {
		t.before = make([]placeholders.Query, n-1)
		for i, w := range user.Write[:n-1] {
			stmts = append(stmts, namedStmt{fmt.Sprintf("--sql-write %d of %d", i+1, n), w, &t.before[i]})
		}
		what := "--sql-write"
		if n > 1 {
			what = fmt.Sprintf("--sql-write %d of %d", n, n)
		}
		// The last is first in the list: decideCounting names it.
		stmts = append([]namedStmt{{what, user.Write[n-1], &t.write}}, stmts...)
	} else {
		stmts = append(stmts, namedStmt{"--sql-write", "", &t.write})
	}
	if user.Guard != "" {
		stmts = append(stmts, namedStmt{"--sql-guard", user.Guard, &t.guard})
	}
	stmts = append(stmts, namedStmt{"--sql-read", user.Read, &t.read})
	if t.mode != "" {
		t.table = newTableName()
		b := t.d.statements(t.table, t.acceptEqual)
		t.setup, t.teardown = []string{b.create}, []string{b.drop}
		stmts = []namedStmt{{"atomic", b.atomic, &t.write}, {"read", b.read, &t.read}, {"check", b.checkRead, &t.checkRead}, {"set", b.set, &t.set},
			{"plain", b.plain, &t.plain}}
	}
	for _, s := range stmts {
		q, err := placeholders.Translate(s.stmt, t.d.syntax)
		if err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
		*s.dest = q
	}
	for _, stmt := range append(slices.Clip(t.setup), t.teardown...) {
		q, err := placeholders.Translate(stmt, t.d.syntax)
		if err == nil && len(q.Params) > 0 {
			err = fmt.Errorf("set-up and tear-down statements take no placeholders")
		}
		if err != nil {
			return fmt.Errorf("%q: %w", stmt, err)
		}
	}
	if err := t.decideCounting(user.Accepted); err != nil {
		return fmt.Errorf("%s: %w", stmts[0].what, err)
	}
	return t.checkTx(user)
}

// decideCounting reads from the write's shape how its count becomes an
// outcome, or refuses a shape whose count would not say.
func (t *Target) decideCounting(rule Accepted) error {
	if t.mode == ModeCheckThenSet {
		// Its outcome is decided in Go; the count of its unguarded
		// update is never read.
		t.count = counting{}
		return nil
	}
	s, err := shapeOf(t.write)
	if err == nil {
		t.count, err = countingFor(s, rule, t.d.counting)
	}
	return err
}

// namedStmt is a statement to translate, where it came from, and where
// its translation goes.
type namedStmt struct {
	what, stmt string
	dest       *placeholders.Query
}

// connect opens the pool and pings the database, so that an unreachable
// target fails before the run starts.
func (t *Target) connect(ctx context.Context, scheme, spec, rest string, o Options) error {
	var err error
	switch scheme {
	case "sqlite":
		t.db, t.release, err = openSQLite(ctx, rest, o)
		t.turns = newWriteTurns()
	case "mysql":
		var u *url.URL
		if u, err = url.Parse(spec); err == nil {
			t.db, err = openMySQL(u, o, t.count.foundRows, t.log)
		}
	default:
		t.db, err = openPostgres(spec, o)
	}
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	if err := t.db.PingContext(pctx); err != nil {
		t.Close()
		return err
	}
	return nil
}

// newTableName returns a scratch table name no other run uses.
func newTableName() string {
	return "fencecheck_" + unique.Hex(6)
}

// Name returns the target spec with its password redacted.
func (t *Target) Name() string { return t.name }

// Mode returns the built-in mode, or "" for the user's own statements.
func (t *Target) Mode() Mode { return t.mode }

// Table returns the scratch table of a built-in mode ("" for the user's
// own statements).
func (t *Target) Table() string { return t.table }

// Dialect names the engine: sqlite, postgres or mysql.
func (t *Target) Dialect() string { return t.d.name }

// SetWindow sets what runs in check-then-set between the comparison and
// the update, and in the user's own transaction between its guard and
// its first statement and between statements; the harness uses it to hold
// a write there. A single statement has no such window and never calls it.
func (t *Target) SetWindow(window func(ctx context.Context, resource string, token uint64)) {
	t.window = window
}

// Setup creates the scratch table, or runs the user's set-up statements.
func (t *Target) Setup(ctx context.Context) error { return t.execAll(ctx, "set up", t.setup) }

func (t *Target) execAll(ctx context.Context, what string, stmts []string) error {
	for _, stmt := range stmts {
		sctx, cancel := context.WithTimeout(ctx, t.timeout)
		_, err := t.db.ExecContext(sctx, stmt)
		cancel()
		if err != nil {
			return fmt.Errorf("%s %s: %q: %w", what, t.name, stmt, redact.Error(err, t.secrets))
		}
	}
	return nil
}

// Close closes the pool.
func (t *Target) Close() error {
	err := t.release()
	if cerr := t.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// The interfaces the harness looks for.
var (
	_ targets.Target          = (*Target)(nil)
	_ targets.Setupper        = (*Target)(nil)
	_ targets.Teardowner      = (*Target)(nil)
	_ targets.TokenlessWriter = (*Target)(nil)
	_ targets.Windowed        = (*Target)(nil)
	_ targets.RunDirUser      = (*Target)(nil)
)
