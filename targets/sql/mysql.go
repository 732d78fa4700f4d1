package sql

import (
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/fencecheck/fencecheck/targets/sql/internal/placeholders"
)

// mysqlDialect is MySQL and MariaDB through go-sql-driver/mysql.
//
// The affected-row count of INSERT … ON DUPLICATE KEY UPDATE is 1 when it
// inserted, 2 when it updated an existing row and 0 when it left the row as
// it was, unless the connection sets CLIENT_FOUND_ROWS (clientFoundRows in
// the DSN): then an unchanged row counts 1, the same as an insert. The
// atomic upsert therefore runs on connections without it, and bumps a
// version column whenever it accepts, so that an accepted write always
// changes the row (under accept-equal, a repeat of the same token and
// value would otherwise count 0 and read as a rejection). Assignments run
// left to right, so the token is assigned last and every guard compares
// against the old one.
//
// A plain UPDATE needs the opposite: without CLIENT_FOUND_ROWS it counts
// the rows it changed, so an UPDATE whose guard matched but whose values
// were already in place counts 0. The user's own statements and
// check-then-set therefore run with clientFoundRows=true (found rows),
// unless the target spec sets it.
//
// check-then-set runs in a transaction at the default isolation
// (REPEATABLE READ): its plain SELECT reads a snapshot, while the update
// that follows reads and overwrites the newest row.
var mysqlDialect = dialect{
	name:   "mysql",
	syntax: placeholders.MySQL,
	create: "CREATE TABLE %[1]s (resource VARCHAR(191) PRIMARY KEY, token BIGINT NOT NULL, value TEXT NOT NULL, " +
		"version BIGINT NOT NULL DEFAULT 1) ENGINE=InnoDB",
	atomic: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, :token, :value) ON DUPLICATE KEY UPDATE " +
		"version = IF(VALUES(token) %[2]s token, version + 1, version), " +
		"value = IF(VALUES(token) %[2]s token, VALUES(value), value), " +
		"token = IF(VALUES(token) %[2]s token, VALUES(token), token)",
	read:      "SELECT value, token FROM %[1]s WHERE resource = :resource",
	checkRead: "SELECT token FROM %[1]s WHERE resource = :resource",
	set: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, :token, :value) " +
		"ON DUPLICATE KEY UPDATE value = VALUES(value), token = VALUES(token)",
	checkInTx: true,
}

// openMySQL converts a mysql://user:pass@host:port/db?params URL into the
// driver's configuration and opens a pool. Query parameters are the
// driver's own DSN parameters.
func openMySQL(u *url.URL, o Options, foundRows bool) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN("/?" + u.RawQuery)
	if err != nil {
		return nil, err
	}
	if _, set := u.Query()["clientFoundRows"]; !set || !foundRows {
		// The spec may choose for the user's own statements; the
		// built-in upsert needs changed rows.
		cfg.ClientFoundRows = foundRows
	}
	cfg.User = u.User.Username()
	cfg.Passwd, _ = u.User.Password()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	cfg.DBName = strings.TrimPrefix(u.Path, "/")
	if cfg.DBName == "" {
		return nil, fmt.Errorf("no database name: want mysql://user@host:3306/db")
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = o.Timeout
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	sizePool(db, poolSize(o.Workers))
	return db, nil
}
