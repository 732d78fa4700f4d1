package receiver

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// SQLite is a durable store in one SQLite file. Each write is committed in
// WAL mode with synchronous=FULL before CompareAndPut returns, so the
// receiver answers only after the highest token and its value are on disk,
// and both survive a crash of the process.
//
// SQLite integers are signed, so tokens are kept as 20-digit zero-padded
// text, which compares in the same order as the uint64 values across the
// whole range, 2^63 and above included.
type SQLite struct {
	db *sql.DB
}

// OpenSQLite opens (creating if needed) the store in the file at path,
// taken literally ('?', '#', '%' and spaces are part of the name).
func OpenSQLite(path string) (*SQLite, error) {
	dsn, _, err := storeDSN("sqlite:" + path)
	if err != nil {
		return nil, err
	}
	return openSQLite(dsn, path)
}

// openSQLite opens the store at a DSN; name says which store in errors.
// It refuses a store whose pragmas did not apply: SQLite answers a
// pragma it cannot honour (WAL on an in-memory or read-only database)
// without an error, and the store would then promise a durability it
// does not have.
func openSQLite(dsn, name string) (*SQLite, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", name, err)
	}
	// One connection: SQLite has one writer anyway, and this keeps
	// every statement free of SQLITE_BUSY.
	db.SetMaxOpenConns(1)
	// The first connection runs the DSN's pragmas; one it cannot run
	// (WAL on a file opened read-only) fails it here.
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", name, err)
	}
	read := func(pragma string) (string, error) {
		var v string
		err := db.QueryRow("PRAGMA " + pragma).Scan(&v)
		return v, err
	}
	if err := checkPragmas(read); err != nil {
		db.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", name, err)
	}
	const schema = `CREATE TABLE IF NOT EXISTS resources (
		resource TEXT PRIMARY KEY,
		token    TEXT NOT NULL, -- 20-digit zero-padded decimal
		value    BLOB NOT NULL
	)`
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("create sqlite store %s: %w", name, err)
	}
	return &SQLite{db: db}, nil
}

func padToken(t uint64) string { return fmt.Sprintf("%020d", t) }

func unpadToken(s string) (uint64, error) {
	t, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stored token %q: %w", s, err)
	}
	return t, nil
}

// CompareAndPut implements Store in one statement: the upsert's WHERE
// clause is the comparison, so comparison and mutation are one step.
func (s *SQLite) CompareAndPut(ctx context.Context, resource string, c Cell, rule Rule) (bool, uint64, error) {
	cond := map[Rule]string{Greater: "excluded.token > resources.token", GreaterOrEqual: "excluded.token >= resources.token", Always: "1"}[rule]
	res, err := s.db.ExecContext(ctx, `INSERT INTO resources (resource, token, value) VALUES (?, ?, ?)
		ON CONFLICT (resource) DO UPDATE SET token = excluded.token, value = excluded.value WHERE `+cond,
		resource, padToken(c.Token), []byte(c.Value))
	if err != nil {
		return false, 0, fmt.Errorf("write %s: %w", resource, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, 0, fmt.Errorf("write %s: %w", resource, err)
	}
	if n == 1 {
		return true, c.Token, nil
	}
	cur, _, err := s.Get(ctx, resource)
	return false, cur.Token, err
}

// Get implements Store.
func (s *SQLite) Get(ctx context.Context, resource string) (Cell, bool, error) {
	var tok string
	var val []byte
	err := s.db.QueryRowContext(ctx, `SELECT token, value FROM resources WHERE resource = ?`, resource).Scan(&tok, &val)
	if errors.Is(err, sql.ErrNoRows) {
		return Cell{}, false, nil
	}
	if err != nil {
		return Cell{}, false, fmt.Errorf("read %s: %w", resource, err)
	}
	t, err := unpadToken(tok)
	if err != nil {
		return Cell{}, false, err
	}
	return Cell{Value: string(val), Token: t}, true, nil
}

// Put implements Store.
func (s *SQLite) Put(ctx context.Context, resource string, c Cell) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO resources (resource, token, value) VALUES (?, ?, ?)
		ON CONFLICT (resource) DO UPDATE SET token = excluded.token, value = excluded.value`,
		resource, padToken(c.Token), []byte(c.Value))
	if err != nil {
		return fmt.Errorf("write %s: %w", resource, err)
	}
	return nil
}

// Close implements Store.
func (s *SQLite) Close() error { return s.db.Close() }
