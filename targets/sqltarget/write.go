package sqltarget

import (
	"context"
	"database/sql"
	"fmt"
	"math"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
	"github.com/fencecheck/fencecheck/targets/sqltarget/internal/placeholders"
)

// Write sends the write with its token, in the target's mode.
func (t *Target) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if token > math.MaxInt64 {
		return 0, notApplied(fmt.Errorf("write token %d to %s: does not fit a BIGINT", token, t.name))
	}
	a := args{resource: resource, token: int64(token), value: value}
	var out histories.Outcome
	var err error
	switch {
	case t.mode == ModeCheckThenSet:
		out, err = t.checkThenSet(ctx, a)
	case t.tx:
		out, err = t.writeTx(ctx, a)
	default:
		out, err = t.writeOnce(ctx, a)
	}
	if err != nil {
		return 0, fmt.Errorf("write token %d to %s at %s: %w", token, resource, t.name, redact.Error(err, t.secrets))
	}
	return out, nil
}

// writeOnce runs the one write statement (the atomic upsert or the
// user's) and reads its result with the rule its shape decided.
func (t *Target) writeOnce(ctx context.Context, a args) (histories.Outcome, error) {
	// The wait for the turn and for a connection counts against the
	// statement's deadline.
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	release, err := t.turns.take(sctx)
	if err != nil {
		return 0, err
	}
	defer release()
	conn, err := t.db.Conn(sctx)
	if err != nil {
		return 0, notApplied(err)
	}
	defer conn.Close()
	return t.count.run(sctx, conn, t.traced(ctx, t.write), a)
}

// runner is what a statement runs on: a connection or a transaction.
type runner interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// run runs a write's statement and reads its result as c says: the rows
// it returned, or else the rows it affected. An error the statement
// returned is classified (errors.go); a result that is no outcome is an
// unknown one, since the statement ran.
func (c counting) run(ctx context.Context, r runner, q placeholders.Query, a args) (histories.Outcome, error) {
	if !c.rows {
		res, err := r.ExecContext(ctx, q.Text, a.bind(q)...)
		if err != nil {
			return 0, classify(err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		return c.outcome(n)
	}
	rows, err := r.QueryContext(ctx, q.Text, a.bind(q)...)
	if err != nil {
		return 0, classify(err)
	}
	defer rows.Close()
	return c.rowsOutcome(rows)
}
