package sqltarget

import (
	"fmt"
	"time"
)

// Mode is a built-in way of writing with the token.
type Mode string

// Built-in modes.
const (
	// ModeAtomic compares the token and writes in one statement: an upsert
	// whose update is guarded by the token. It is correct on every engine.
	ModeAtomic Mode = "atomic"
	// ModeCheckThenSet reads the stored token, compares it in Go and
	// writes in a separate statement: the article's hazard, which fencecheck
	// must find.
	ModeCheckThenSet Mode = "check-then-set"
)

// Modes lists the built-in modes, for help texts and errors.
func Modes() []Mode { return []Mode{ModeAtomic, ModeCheckThenSet} }

// Statements are the user's own statements, with the named placeholders
// :resource, :token and :value. Write is required when any is set.
type Statements struct {
	Setup []string // run in order before the run; take no placeholders
	// Write is the write: one statement, run on its own (autocommit),
	// or the ordered statements of one transaction. The last one's
	// result is read as the outcome (Accepted; see the package
	// documentation).
	Write []string
	// Guard, if set, runs first inside the write's transaction; when it
	// returns no row the write is rejected and the transaction rolled
	// back. It must return rows: a SELECT, or a statement with RETURNING.
	Guard string
	// Isolation is the transaction's isolation level; the engine's
	// default when empty.
	Isolation Isolation
	// Accepted is how the last statement's result becomes the outcome;
	// AcceptedAuto when empty.
	Accepted Accepted
	Read     string   // returns value and, optionally, token; or no row
	Teardown []string // run in order after the run; take no placeholders
}

// empty reports whether no statement was given.
func (s Statements) empty() bool {
	return len(s.Setup) == 0 && len(s.Write) == 0 && s.Guard == "" && s.Read == "" && len(s.Teardown) == 0 &&
		s.Isolation == "" && s.Accepted == ""
}

// Given reports whether any statement, or the isolation level or the
// acceptance rule of the user's own, is set.
func (s Statements) Given() bool { return !s.empty() }

// inTx reports whether the write runs as a transaction: several
// statements, a guard, or an isolation level ask for one; a single
// statement alone runs in autocommit, as a service would send it.
func (s Statements) inTx() bool {
	return len(s.Write) > 1 || s.Guard != "" || s.Isolation != ""
}

// Options configure a SQL target. DefaultOptions gives the defaults; a
// zero field means zero.
type Options struct {
	// Mode is a built-in mode. It must be empty when Statements are
	// given, and set when they are not.
	Mode Mode
	// Statements replace the built-in ones.
	Statements Statements
	// Workers is the number of concurrent workers the pool serves; at
	// least 1.
	Workers int
	// AcceptEqual makes the built-in modes accept a repeat of the current
	// token (the accept-equal policy); without it they need a higher one.
	AcceptEqual bool
	// Timeout is the deadline of every statement, and how long SQLite
	// waits for its write lock; it must be positive, since SQLite would
	// read 0 as not waiting at all.
	Timeout time.Duration

	_ struct{}
}

// DefaultOptions are the atomic mode with a pool for the harness's 8
// workers and 5s per statement: long past a healthy loopback database's
// answer, and room for SQLite's writers to queue for the lock.
func DefaultOptions() Options {
	return Options{Mode: ModeAtomic, Workers: 8, Timeout: 5 * time.Second}
}

// WithOwn returns o with the caller's own statements and mode as a user
// gives them, either or both: o's mode (the default) stays unless a mode
// or a statement is given, and is then the mode given, empty beside
// statements. Opening the target says what is wrong with a mode beside
// statements.
func (o Options) WithOwn(mode Mode, st Statements) Options {
	if mode != "" || st.Given() {
		o.Mode = mode
	}
	o.Statements = st
	return o
}

func (o *Options) validate() error {
	switch {
	case o.Workers < 1:
		return fmt.Errorf("options: Workers must be at least 1, not %d", o.Workers)
	case o.Timeout <= 0:
		return fmt.Errorf("options: Timeout must be positive, not %v", o.Timeout)
	case o.Statements.empty() && o.Mode == "":
		return fmt.Errorf("options: no Mode and no Statements: set one")
	case !o.Statements.empty() && o.Mode != "":
		return fmt.Errorf("sql-mode %s and your own statements exclude each other", o.Mode)
	case !o.Statements.empty() && (len(o.Statements.Write) == 0 || o.Statements.Read == ""):
		return fmt.Errorf("your own statements need both a write and a read statement")
	case o.Statements.empty() && o.Mode != ModeAtomic && o.Mode != ModeCheckThenSet:
		return fmt.Errorf("unknown sql-mode %q (want one of %v)", o.Mode, Modes())
	}
	if err := o.Statements.Isolation.validate(); err != nil {
		return err
	}
	return o.Statements.Accepted.validate()
}
