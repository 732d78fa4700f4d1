package sqltarget

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// counting is how the count a write statement returns becomes an outcome,
// and what the count needs of the connection. It is decided once, from
// the statement's shape, before anything is sent: a count read with the
// wrong meaning turns every rejection into an acceptance (or the other
// way round) and the verdict into a false VIOLATED, so a shape whose count
// cannot be read is refused instead (each dialect's counting function
// says which).
type counting struct {
	// upsert: MySQL's INSERT … ON DUPLICATE KEY UPDATE, counted on a
	// connection without CLIENT_FOUND_ROWS: 1 inserted and 2 updated are
	// accepted, 0 (the row left as it was) is rejected, and any other
	// count is not one row's and is an error (an unknown outcome).
	// Otherwise the write is accepted when it affected or returned a row
	// and rejected when it did neither.
	upsert bool
	// foundRows is what MySQL's CLIENT_FOUND_ROWS must be for the count
	// to mean that; the other engines have no such flag.
	foundRows foundRows
	// rows: the statement returns rows (RETURNING, a query), and they,
	// not a count, are the result (rowsOutcome in accepted.go). noRow
	// reads them backwards: accepted when none came back. column: a
	// column named accepted decides when the rows have one; needColumn:
	// they must have one (a query, whose rows alone say nothing).
	rows, noRow, column, needColumn bool
}

// foundRows is what a write's count needs of MySQL's CLIENT_FOUND_ROWS
// (clientFoundRows in the target spec).
type foundRows uint8

const (
	// foundRowsEither: the count does not depend on it (INSERT, REPLACE,
	// DELETE, RETURNING); the spec's setting, else the driver's (off).
	foundRowsEither foundRows = iota
	// foundRowsOn: an UPDATE counts the rows its guard matched, so that an
	// accepted write whose values were already in place counts 1.
	foundRowsOn
	// foundRowsOff: an INSERT … ON DUPLICATE KEY UPDATE counts 0 for a
	// row left as it was, not 1 like an insert.
	foundRowsOff
	// foundRowsGiven: the count is that of a statement fencecheck cannot
	// see (a procedure's last one), so the spec must say which it needs.
	foundRowsGiven
)

// outcome turns the count of rows a write affected, or returned with
// RETURNING, into its outcome.
func (c counting) outcome(n int64) (histories.Outcome, error) {
	switch {
	case c.upsert && n > 2:
		return 0, fmt.Errorf("INSERT … ON DUPLICATE KEY UPDATE affected %d rows: one row counts 0, 1 or 2, so this is not one resource's write", n)
	case n > 0:
		return histories.Accepted, nil
	case n == 0:
		return histories.Rejected, nil
	}
	return 0, fmt.Errorf("the driver reported %d affected rows", n)
}

// shape is what a write's outline says about it.
type shape struct {
	// kind is the statement's first keyword, after a WITH clause if it
	// has one: INSERT, UPDATE, CALL, …
	kind      string
	returning bool // a RETURNING clause of its own
	// upsert: an INSERT with ON DUPLICATE KEY UPDATE (MySQL). rows is then
	// the number of rows its VALUES clause writes (0 for INSERT … SET and
	// INSERT … SELECT).
	upsert bool
	rows   int
	// words is the statement's outline (placeholders.Query.Outline).
	words []string
}

// query reports whether the statement is a query: its rows are what it
// returns whatever it wrote.
func (s shape) query() bool { return s.kind == "SELECT" || s.kind == "VALUES" || s.kind == "TABLE" }

// dmlKeywords are the words that can start the statement that follows a
// WITH clause.
var dmlKeywords = []string{"INSERT", "REPLACE", "UPDATE", "DELETE", "MERGE", "SELECT", "VALUES", "TABLE", "CALL"}

// shapeOf reads the shape of a translated write. A write must be one
// statement: the count of several is that of one of them (which one
// depends on the driver).
func shapeOf(q placeholders.Query) (shape, error) {
	var stmts [][]string
	for part := range strings.SplitSeq(strings.Join(q.Outline, " "), ";") {
		if words := strings.Fields(part); len(words) > 0 {
			stmts = append(stmts, words)
		}
	}
	switch len(stmts) {
	case 0:
		return shape{}, errors.New("no statement, only blanks or comments")
	case 1:
	default:
		return shape{}, fmt.Errorf("%d statements: a write's outcome is read from the count of one statement, so give one (the statements of a transaction each as a write of their own)", len(stmts))
	}
	words := stmts[0]
	s := shape{kind: words[0], returning: q.Returning, words: words}
	if s.kind == "WITH" {
		if i := slices.IndexFunc(words, func(w string) bool { return slices.Contains(dmlKeywords, w) }); i >= 0 {
			s.kind = words[i]
		}
	}
	if odku := indexSeq(words, "ON", "DUPLICATE", "KEY", "UPDATE"); s.kind == "INSERT" && odku >= 0 {
		s.upsert = true
		s.rows = valuesRows(words[:odku])
	}
	return s, nil
}

// valuesRows counts the row constructors of an INSERT's VALUES clause:
// VALUES (…), (…) or VALUES ROW(…), ROW(…).
func valuesRows(words []string) int {
	i := slices.IndexFunc(words, func(w string) bool { return w == "VALUES" || w == "VALUE" })
	if i < 0 {
		return 0
	}
	n := 0
	for _, w := range words[i+1:] {
		switch w {
		case "(":
			n++
		case ",", "ROW":
		default:
			return n
		}
	}
	return n
}

// indexSeq returns where seq starts in words, or -1.
func indexSeq(words []string, seq ...string) int {
	for i := range words {
		if len(words)-i >= len(seq) && slices.Equal(words[i:i+len(seq)], seq) {
			return i
		}
	}
	return -1
}

// plainCounting is the rule for the shapes every engine counts the same
// way: accepted when the statement affected a row (or RETURNING returned
// one), rejected when none. kinds are the statements the engine counts
// so; any other is refused.
func (s shape) plainCounting(engine string, kinds ...string) (counting, error) {
	switch {
	case slices.Contains(kinds, s.kind):
		return counting{foundRows: foundRowsEither}, nil
	case s.query():
		return counting{}, fmt.Errorf("a %s cannot be the write: it returns its rows whatever it wrote (a function's false is a row too), so they cannot say whether the write was accepted; "+
			"put the guard in an INSERT or UPDATE (with RETURNING if you like)", s.kind)
	}
	return counting{}, fmt.Errorf("a write that starts with %s: fencecheck reads a write's outcome from its count of rows, which on %s it can do for %s", s.kind, engine, strings.Join(kinds, ", "))
}
