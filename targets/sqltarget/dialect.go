package sqltarget

import (
	"fmt"

	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// dialect is what differs between engines: the placeholder syntax and the
// built-in statements, written with the same named placeholders a user's
// statements use. Each engine's file (sqlite.go, postgres.go, mysql.go)
// holds one value of it and the code that opens a pool.
type dialect struct {
	name   string
	syntax placeholders.Syntax
	// create makes the scratch table: resource, token, value.
	create string
	// atomic compares and writes in one statement; %[2]s is the
	// comparison that accepts (> or >=).
	atomic string
	// read returns value and token, or no row.
	read string
	// checkRead and set are check-then-set's two steps: read the token;
	// then, after comparing in Go, write without a guard.
	checkRead string
	set       string
	// plain writes the value without a token, for a client that does not
	// fence: no guard, a new row with token 0, an existing row keeping
	// its token.
	plain string
	// checkInTx runs check-then-set in a transaction at the engine's
	// default isolation; otherwise as two autocommit statements.
	checkInTx bool
	// counting says how the count of a write of this shape is read, or
	// why it cannot be (counting.go).
	counting func(shape) (counting, error)
	// traces: each statement of an operation starts with a comment that
	// holds its traceparent (trace.go), which the engine keeps where it
	// shows statements (its logs, its list of running statements).
	traces bool
}

// drop removes the scratch table.
const drop = "DROP TABLE IF EXISTS %[1]s"

// statements returns the dialect's built-in statements for table.
func (d dialect) statements(table string, acceptEqual bool) builtin {
	cmp := ">"
	if acceptEqual {
		cmp = ">="
	}
	return builtin{
		create:    fmt.Sprintf(d.create, table),
		drop:      fmt.Sprintf(drop, table),
		atomic:    fmt.Sprintf(d.atomic, table, cmp),
		read:      fmt.Sprintf(d.read, table),
		checkRead: fmt.Sprintf(d.checkRead, table),
		set:       fmt.Sprintf(d.set, table),
		plain:     fmt.Sprintf(d.plain, table),
	}
}

// builtin holds a dialect's statements for one scratch table.
type builtin struct {
	create, drop, atomic, read, checkRead, set, plain string
}
