package sqltarget

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
)

// Accepted is the rule that turns the result of a write's last statement
// into its outcome.
type Accepted string

const (
	// AcceptedAuto (the zero value) reads the statement's shape
	// (counting.go): accepted when it affected a row, or when RETURNING
	// returned one; and when its rows carry a column named accepted,
	// that column's value decides instead (see acceptedColumn).
	AcceptedAuto Accepted = ""
	// AcceptedAffectsRows: accepted when the statement affected a row,
	// rejected when it affected none, counted as the engine counts that
	// shape (MySQL's upsert: 1 or 2 accepted, 0 rejected).
	AcceptedAffectsRows Accepted = "affects-rows"
	// AcceptedReturnsRow: accepted when the statement returned a row,
	// rejected when it returned none.
	AcceptedReturnsRow Accepted = "returns-row"
	// AcceptedReturnsNoRow: accepted when the statement returned no row,
	// rejected when it returned one or more: for a statement that
	// returns the rows it did not apply.
	AcceptedReturnsNoRow Accepted = "returns-no-row"
)

// AcceptedRules lists the explicit rules, for help texts and errors.
func AcceptedRules() []Accepted {
	return []Accepted{AcceptedAffectsRows, AcceptedReturnsRow, AcceptedReturnsNoRow}
}

func (a Accepted) validate() error {
	if a == AcceptedAuto || slices.Contains(AcceptedRules(), a) {
		return nil
	}
	return fmt.Errorf("unknown accepted rule %q (want one of %v, or none to read the statement's shape)", string(a), AcceptedRules())
}

// acceptedColumn is the name of the column that, in AcceptedAuto, says
// whether the write was accepted. It is matched in any case.
const acceptedColumn = "accepted"

// countingFor decides how the last statement's result becomes an outcome
// under rule, or refuses a statement the rule cannot read. engine is the
// dialect's own rule for counting affected rows.
func countingFor(s shape, rule Accepted, engine func(shape) (counting, error)) (counting, error) {
	rowsShape := s.returning || s.query()
	switch rule {
	case AcceptedAffectsRows:
		if rowsShape {
			return counting{}, fmt.Errorf("affects-rows: a %s returns rows, and the count of affected rows that comes with them is not one the engines agree on; "+
				"use returns-row or returns-no-row, or drop RETURNING", s.describe())
		}
		return engine(s)
	case AcceptedReturnsRow, AcceptedReturnsNoRow:
		switch {
		case !rowsShape:
			return counting{}, fmt.Errorf("%s: a %s returns no rows, so it would always read the same; "+
				"add RETURNING, or use affects-rows", rule, s.describe())
		case s.upsert:
			return counting{}, fmt.Errorf("%s: INSERT … ON DUPLICATE KEY UPDATE … RETURNING returns the row whether or not the update changed it, "+
				"so its rows cannot say whether the write was accepted; drop RETURNING and use affects-rows", rule)
		}
		return counting{rows: true, noRow: rule == AcceptedReturnsNoRow}, nil
	}
	if s.query() {
		// A query returns its rows whatever it wrote, so its rows alone
		// say nothing; a column named accepted does.
		if !slices.Contains(s.words, strings.ToUpper(acceptedColumn)) {
			return counting{}, fmt.Errorf("a %s cannot be the write: it returns its rows whatever it wrote (a function's false is a row too), so they cannot say whether the write was accepted; "+
				"return a boolean column named accepted (… AS accepted), give --sql-accepted returns-row or returns-no-row, "+
				"or put the guard in an INSERT or UPDATE (with RETURNING if you like)", s.kind)
		}
		return counting{rows: true, column: true, needColumn: true}, nil
	}
	c, err := engine(s)
	if err != nil {
		return c, err
	}
	c.rows, c.column = s.returning, s.returning
	return c, nil
}

// describe names the statement's shape for an error.
func (s shape) describe() string {
	if s.returning {
		return s.kind + " with RETURNING"
	}
	return s.kind
}

// rowsOutcome reads the rows a write's last statement returned.
//
// With an accepted column (AcceptedAuto), exactly one row must come back
// and its value (true or false; 1 or 0 on MySQL and SQLite) is the
// outcome; no row is a rejection for a statement with RETURNING (it
// changed nothing) and an error for a query. Anything else (a NULL,
// several rows, a query without the column) is an error: an unknown
// outcome, since the statement ran.
func (c counting) rowsOutcome(rows *sql.Rows) (histories.Outcome, error) {
	cols, err := rows.Columns()
	if err != nil {
		return 0, err
	}
	col := -1
	if c.column {
		col = slices.IndexFunc(cols, func(name string) bool { return strings.EqualFold(name, acceptedColumn) })
	}
	if col < 0 && c.needColumn {
		return 0, fmt.Errorf("the write's last statement returned the columns %v, none named %s, so its rows cannot say whether it was accepted", cols, acceptedColumn)
	}
	var n int64
	var accepted sql.NullBool
	for rows.Next() {
		n++
		if col < 0 || n > 1 {
			continue
		}
		dest := make([]any, len(cols))
		for i := range dest {
			dest[i] = new(sql.RawBytes)
		}
		dest[col] = &accepted
		if err := rows.Scan(dest...); err != nil {
			return 0, fmt.Errorf("column %s: %w", cols[col], err)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if err := rows.Close(); err != nil {
		return 0, err
	}
	switch {
	case col < 0 && c.noRow:
		return outcomeIf(n == 0), nil
	case col < 0:
		return outcomeIf(n > 0), nil
	case n == 0 && c.needColumn:
		return 0, fmt.Errorf("the write's last statement returned no row, so its column %s cannot say whether it was accepted", cols[col])
	case n == 0:
		return histories.Rejected, nil
	case n > 1:
		return 0, fmt.Errorf("the write's last statement returned %d rows with a column %s; want one row for one resource's write", n, cols[col])
	case !accepted.Valid:
		return 0, fmt.Errorf("the write's last statement returned NULL in its column %s", cols[col])
	}
	return outcomeIf(accepted.Bool), nil
}

// outcomeIf is Accepted when ok, Rejected otherwise.
func outcomeIf(ok bool) histories.Outcome {
	if ok {
		return histories.Accepted
	}
	return histories.Rejected
}
