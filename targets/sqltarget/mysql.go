package sqltarget

import (
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// mysqlDialect is MySQL and MariaDB through go-sql-driver/mysql.
//
// MySQL counts affected rows in two ways, chosen per connection by the
// CLIENT_FOUND_ROWS flag (clientFoundRows in the target spec), and each
// shape of write needs one of them (mysqlCounting):
//
//   - INSERT … ON DUPLICATE KEY UPDATE counts 1 when it inserted, 2 when
//     it updated an existing row and 0 when it left the row as it was;
//     with CLIENT_FOUND_ROWS a row left as it was counts 1, the same as an
//     insert, and a rejection could not be told from an acceptance. It
//     runs without the flag.
//   - A plain UPDATE without the flag counts the rows it changed, so an
//     UPDATE whose guard matched but whose values were already in place
//     counts 0; with it, the rows its WHERE matched. It runs with the flag.
//   - INSERT, INSERT IGNORE, INSERT … SELECT, REPLACE and DELETE count the
//     same either way; RETURNING (MariaDB 10.5+) returns rows instead,
//     except that INSERT … ON DUPLICATE KEY UPDATE … RETURNING returns the
//     row whether or not the update changed it, and is refused.
//   - A CALL counts what the procedure's last statement counts, which
//     fencecheck cannot see: the spec must set clientFoundRows.
//
// A spec that sets clientFoundRows against what its write needs is
// refused before anything is sent (openMySQL).
//
// The atomic upsert bumps a version column whenever it accepts, so that
// an accepted write always changes the row (under accept-equal, a repeat
// of the same token and value would otherwise count 0 and read as a
// rejection). Assignments run left to right, so the token is assigned
// last and every guard compares against the old one.
//
// check-then-set runs in a transaction at the default isolation
// (REPEATABLE READ): its plain SELECT reads a snapshot, while the update
// that follows reads and overwrites the newest row. The count of its
// unguarded update is never read.
var mysqlDialect = dialect{
	name:   "mysql",
	syntax: placeholders.MySQL(),
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
	plain: "INSERT INTO %[1]s (resource, token, value) VALUES (:resource, 0, :value) " +
		"ON DUPLICATE KEY UPDATE value = VALUES(value)",
	checkInTx: true,
	counting:  mysqlCounting,
	traces:    true,
}

// mysqlCounting reads a write's shape the way MySQL counts it.
func mysqlCounting(s shape) (counting, error) {
	switch {
	case s.upsert && s.returning:
		return counting{}, errors.New("INSERT … ON DUPLICATE KEY UPDATE … RETURNING returns the row whether or not the update changed it, " +
			"so a rejected write would read as accepted: drop RETURNING, and fencecheck reads the affected rows (1 inserted, 2 updated, 0 left as it was: rejected)")
	case s.upsert && s.rows > 1:
		return counting{}, fmt.Errorf("INSERT … ON DUPLICATE KEY UPDATE of %d rows: its count adds up every row's (1 inserted, 2 updated, 0 left as it was), "+
			"so it cannot say whether the resource's write was accepted; write one row", s.rows)
	case s.upsert:
		return counting{upsert: true, foundRows: foundRowsOff}, nil
	case s.kind == "UPDATE":
		return counting{foundRows: foundRowsOn}, nil
	case s.kind == "CALL":
		return counting{foundRows: foundRowsGiven}, nil
	}
	return s.plainCounting("MySQL", "INSERT", "REPLACE", "UPDATE", "DELETE", "CALL")
}

// openMySQL converts a mysql://user:pass@host:port/db?params URL into the
// driver's configuration and opens a pool whose connections count rows the
// way the write needs (see mysqlDialect). Query parameters are the
// driver's own DSN parameters. What the driver logs on its own goes to
// log.
func openMySQL(u *url.URL, o Options, need foundRows, log mysql.Logger) (*sql.DB, error) {
	cfg, err := mysql.ParseDSN("/?" + u.RawQuery)
	if err != nil {
		return nil, err
	}
	if cfg.ClientFoundRows, err = clientFoundRows(u.Query().Has("clientFoundRows"), cfg.ClientFoundRows, need); err != nil {
		return nil, err
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
	cfg.Logger = log // not the driver's global logger, which writes to stderr
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	sizePool(db, poolSize(o.Workers))
	return db, nil
}

// clientFoundRows returns the CLIENT_FOUND_ROWS setting for a write that
// needs need, given what the spec set (set, value), or why the spec
// contradicts the write.
func clientFoundRows(set, value bool, need foundRows) (bool, error) {
	switch {
	case need == foundRowsOn && set && !value:
		return false, errors.New("clientFoundRows=false in the target spec makes an UPDATE count the rows it changed, not the rows its guard matched, " +
			"so an accepted write whose values were already in place (a repeat under accept-equal) would read as rejected: " +
			"remove the parameter (fencecheck runs an UPDATE with clientFoundRows=true)")
	case need == foundRowsOff && set && value:
		return false, errors.New("clientFoundRows=true in the target spec makes an INSERT … ON DUPLICATE KEY UPDATE that left the row as it was (a rejected write) count 1, " +
			"the same as an insert, so every rejection would read as accepted: " +
			"remove the parameter (fencecheck runs this upsert with clientFoundRows=false: 1 inserted, 2 updated, 0 rejected)")
	case need == foundRowsGiven && !set:
		return false, errors.New("a CALL counts the rows of the procedure's last statement, which fencecheck cannot see: " +
			"add clientFoundRows=true to the target spec if that statement is an UPDATE (rows matched), " +
			"clientFoundRows=false if it is an INSERT … ON DUPLICATE KEY UPDATE (1 inserted, 2 updated, 0 left as it was)")
	case need == foundRowsOn:
		return true, nil
	case need == foundRowsOff:
		return false, nil
	}
	return value, nil
}
