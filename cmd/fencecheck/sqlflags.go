package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	sqltarget "github.com/fencecheck/fencecheck/targets/sqltarget"
)

// sqlFlags are run's options for SQL targets: the user's own statements
// are read straight into sqltarget's.
type sqlFlags struct {
	mode    string
	own     sqltarget.Statements
	timeout time.Duration
}

func (s *sqlFlags) register(fl *pflag.FlagSet) {
	st := &s.own
	fl.StringVar(&s.mode, "sql-mode", "", "SQL targets: built-in statements, atomic (one guarded upsert; the default) or check-then-set (read, compare, write: broken on purpose)")
	fl.StringArrayVar(&st.Setup, "sql-setup", nil, "SQL targets: a statement to run before the run (repeatable), e.g. to create and empty your table")
	fl.StringArrayVar(&st.Write, "sql-write", nil, "SQL targets: your write statement, with :resource, :token and :value; accepted when it affects (or RETURNING returns) a row, rejected when none (see --sql-accepted). "+
		"Given several times: the ordered statements of one transaction, the last one's result read")
	fl.StringVar(&st.Guard, "sql-guard", "", "SQL targets: a statement run first in the write's transaction, with the same placeholders; when it returns no row the write is rejected and rolled back, "+
		"e.g. SELECT 1 FROM t WHERE id = :resource AND token < :token [FOR UPDATE]")
	fl.StringVar((*string)(&st.Isolation), "sql-isolation", "", fmt.Sprintf("SQL targets: run the write as a transaction at this isolation level, one of %v (default: the engine's)", sqltarget.Isolations()))
	fl.StringVar((*string)(&st.Accepted), "sql-accepted", "", fmt.Sprintf("SQL targets: how the write's last statement says it was accepted, one of %v "+
		"(default: it affects a row, or RETURNING returns one; or a boolean column named accepted in its result says)", sqltarget.AcceptedRules()))
	fl.StringVar(&st.Read, "sql-read", "", "SQL targets: your read statement, with :resource; returns value [, token], or no row")
	fl.StringArrayVar(&st.Teardown, "sql-teardown", nil, "SQL targets: a statement to run after the run (repeatable)")
	fl.DurationVar(&s.timeout, "sql-timeout", sqltarget.DefaultOptions().Timeout, "SQL targets: deadline of every statement")
}

// given reports whether any SQL-only flag was set.
func (s *sqlFlags) given() bool { return s.mode != "" || s.own.Given() }

// writesOwn reports whether the run writes with the user's own statements.
func (s *sqlFlags) writesOwn() bool { return len(s.own.Write) > 0 || s.own.Read != "" }

// options are the SQL target's options; targets/spec sets the workers
// and the policy.
func (s *sqlFlags) options() sqltarget.Options {
	o := sqltarget.DefaultOptions().WithOwn(sqltarget.Mode(s.mode), s.own)
	o.Timeout = s.timeout
	return o
}
