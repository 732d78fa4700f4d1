package sqltarget

import (
	"database/sql"
	"fmt"
)

// Isolation is the isolation level a write's transaction asks for. The
// zero value asks for none: the transaction runs at the engine's default
// (READ COMMITTED on PostgreSQL, REPEATABLE READ on MySQL and MariaDB,
// or whatever the server is configured with), as a service that never
// sets one runs.
type Isolation string

// The levels of the SQL standard, as database/sql names them.
const (
	ReadUncommitted Isolation = "read-uncommitted"
	ReadCommitted   Isolation = "read-committed"
	RepeatableRead  Isolation = "repeatable-read"
	Serializable    Isolation = "serializable"
)

// Isolations lists the levels, for help texts and errors.
func Isolations() []Isolation {
	return []Isolation{ReadUncommitted, ReadCommitted, RepeatableRead, Serializable}
}

var isolationLevels = map[Isolation]sql.IsolationLevel{
	"":              sql.LevelDefault,
	ReadUncommitted: sql.LevelReadUncommitted,
	ReadCommitted:   sql.LevelReadCommitted,
	RepeatableRead:  sql.LevelRepeatableRead,
	Serializable:    sql.LevelSerializable,
}

func (i Isolation) validate() error {
	if _, ok := isolationLevels[i]; !ok {
		return fmt.Errorf("unknown isolation level %q (want one of %v)", string(i), Isolations())
	}
	return nil
}

// level is the database/sql level; the drivers turn it into SET
// TRANSACTION ISOLATION LEVEL (MySQL) or BEGIN ISOLATION LEVEL
// (PostgreSQL). PostgreSQL runs READ UNCOMMITTED as READ COMMITTED.
func (i Isolation) level() sql.IsolationLevel { return isolationLevels[i] }

// forSQLite refuses a level SQLite would not honour: its driver ignores
// the level, and every transaction here is BEGIN IMMEDIATE, which takes
// the write lock first and so is serializable. A test that asked for
// READ COMMITTED and silently ran serializable would pass where the
// asked-for level fails.
func (i Isolation) forSQLite() error {
	if i == "" || i == Serializable {
		return nil
	}
	return fmt.Errorf("isolation %s: SQLite runs every transaction serializable (BEGIN IMMEDIATE takes the write lock first); "+
		"give serializable or no level", i)
}
