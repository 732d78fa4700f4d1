package sqltarget

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver: pure Go, no cgo

	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// sqlite is SQLite through modernc.org/sqlite. Its count is changes():
// the rows the statement inserted, updated or deleted itself. An upsert
// counts 1 when it inserted or updated and 0 when the DO UPDATE's WHERE
// was false; an UPDATE counts the rows its WHERE matched, changed or not;
// INSERT OR IGNORE counts 0 when it ignored; REPLACE counts 1 (the row it
// deleted is not counted). A SELECT leaves changes() as the connection's
// last write left it, so it cannot be the write.
//
// check-then-set runs as two autocommit statements. SQLite has no weaker
// isolation to show the hazard with: a BEGIN IMMEDIATE transaction around
// both steps takes the write lock first and serializes them (the correct
// fix), and a deferred one in WAL mode fails with SQLITE_BUSY_SNAPSHOT
// instead of losing the update.
var sqlite = dialect{
	name:   "sqlite",
	syntax: placeholders.SQLite(),
	create: "CREATE TABLE %[1]s (resource TEXT PRIMARY KEY, token INTEGER NOT NULL, value TEXT NOT NULL)",
	atomic: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, :token, :value) " +
		"ON CONFLICT (resource) DO UPDATE SET token = excluded.token, value = excluded.value " +
		"WHERE excluded.token %[2]s %[1]s.token",
	read:      "SELECT value, token FROM %[1]s WHERE resource = :resource",
	checkRead: "SELECT token FROM %[1]s WHERE resource = :resource",
	set: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, :token, :value) " +
		"ON CONFLICT (resource) DO UPDATE SET token = excluded.token, value = excluded.value",
	plain: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, 0, :value) " +
		"ON CONFLICT (resource) DO UPDATE SET value = excluded.value",
	counting: func(s shape) (counting, error) {
		return s.plainCounting("SQLite", "INSERT", "REPLACE", "UPDATE", "DELETE")
	},
}

// openSQLite opens a database file, or a private in-memory database for
// ":memory:".
//
// SQLite has one writer at a time. Every connection waits up to the
// statement timeout for the lock (busy_timeout) instead of failing at
// once, a file database uses WAL so that readers do not block the writer,
// and any transaction starts with BEGIN IMMEDIATE so that it takes the
// write lock before it reads, never upgrading half-way.
//
// A plain ":memory:" database belongs to one connection, and a pool would
// see a different empty database on every connection. ":memory:" is
// therefore opened as a uniquely named database in SQLite's memdb VFS,
// which every connection of this process shares with the usual locking,
// and one connection is kept open for the target's life so that it is not
// freed between statements.
func openSQLite(ctx context.Context, path string, o Options) (*sql.DB, func() error, error) {
	if path == "" {
		return nil, nil, errors.New("no database file (want sqlite:///path/to.db or sqlite://:memory:)")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, nil, fmt.Errorf("database file %q: ? and # are not supported in SQLite paths", path)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.Timeout.Milliseconds()))
	q.Set("_txlock", "immediate")
	dsn := path
	memory := path == ":memory:"
	if memory {
		var b [8]byte
		_, _ = rand.Read(b[:])
		q.Set("vfs", "memdb")
		dsn = "file:/fencecheck-" + hex.EncodeToString(b[:])
	} else {
		q.Add("_pragma", "journal_mode(WAL)")
	}
	db, err := sql.Open("sqlite", dsn+"?"+q.Encode())
	if err != nil {
		return nil, nil, err
	}
	conns := poolSize(o.Workers)
	if memory {
		conns++ // the pinned connection
	}
	sizePool(db, conns)
	release := func() error { return nil }
	if memory {
		pin, err := db.Conn(ctx)
		if err != nil {
			db.Close()
			return nil, nil, err
		}
		release = pin.Close
	}
	return db, release, nil
}
