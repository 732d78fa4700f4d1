package sqltarget

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// checkThenSet is the article's hazard, as a service would write it: read the
// stored token, compare in Go, then write in a separate statement without
// a guard. Nothing holds the row between the two, so a newer write can
// land in between and be overwritten by this older one. The harness's
// window (SetWindow) runs between the comparison and the update; there the
// delay fault holds a write until a newer token has been accepted.
//
// On PostgreSQL and MySQL both steps run in one transaction at the
// engine's default isolation with a plain SELECT (no FOR UPDATE), as
// services often do believing the transaction protects them; on SQLite as
// two autocommit statements (see sqlite.go for why).
func (t *Target) checkThenSet(ctx context.Context, a args) (histories.Outcome, error) {
	conn, err := t.conn(ctx)
	if err != nil {
		return 0, notApplied(err)
	}
	defer conn.Close()
	if !t.d.checkInTx {
		return t.checkAndSet(ctx, conn, a)
	}
	// The transaction's context bounds BEGIN, the read, the window, the
	// update and COMMIT together; each statement also has its own.
	tctx, cancel := context.WithTimeout(ctx, 3*t.timeout)
	defer cancel()
	tx, err := conn.BeginTx(tctx, nil)
	if err != nil {
		return 0, notApplied(fmt.Errorf("begin: %w", err))
	}
	out, err := t.checkAndSet(ctx, tx, a)
	switch {
	case err != nil:
		return 0, abort(tx, err) // tx.go
	case out == histories.Rejected:
		_ = tx.Rollback() // it wrote nothing
		return out, nil
	}
	if err := tx.Commit(); err != nil {
		return 0, commitError(err)
	}
	return histories.Accepted, nil
}

// conn takes a connection from the pool, waiting at most the statement
// timeout.
func (t *Target) conn(ctx context.Context) (*sql.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	return t.db.Conn(cctx)
}

// checkAndSet reads the stored token, compares, opens the window and
// writes without a guard.
func (t *Target) checkAndSet(ctx context.Context, r runner, a args) (histories.Outcome, error) {
	stored, err := t.storedToken(ctx, r, a)
	if err != nil {
		return 0, notApplied(fmt.Errorf("check: %w", err))
	}
	if a.token < stored || (a.token == stored && !t.acceptEqual) {
		return histories.Rejected, nil
	}
	if t.window != nil {
		t.window(ctx, a.resource, uint64(a.token))
	}
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	if !t.d.checkInTx { // an autocommit update writes alone (writeturn.go)
		release, err := t.turns.take(sctx)
		if err != nil {
			return 0, fmt.Errorf("set: %w", err)
		}
		defer release()
	}
	if _, err := r.ExecContext(sctx, t.traced(ctx, t.set).Text, a.bind(t.set)...); err != nil {
		return 0, fmt.Errorf("set: %w", classify(err))
	}
	return histories.Accepted, nil
}

// storedToken returns the token stored for the resource, 0 when there is
// no row.
func (t *Target) storedToken(ctx context.Context, r runner, a args) (int64, error) {
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	rows, err := r.QueryContext(sctx, t.traced(ctx, t.checkRead).Text, a.bind(t.checkRead)...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var stored sql.NullInt64
	if rows.Next() {
		if err := rows.Scan(&stored); err != nil {
			return 0, err
		}
	}
	return stored.Int64, rows.Err()
}
