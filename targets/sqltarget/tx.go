package sqltarget

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// A write of the user's own statements runs as one transaction when it
// has several statements, a guard or an isolation level (Statements.inTx):
//
//	BEGIN [ISOLATION LEVEL …]
//	guard            no row: ROLLBACK, rejected
//	[window]
//	write 1
//	[window]
//	…
//	write n          its result is the outcome (Accepted)
//	COMMIT
//
// so that an application's own read-compare-update can be tested as it is
// written: a guard that reads without a lock (the race) or with FOR
// UPDATE (correct), at the isolation the application uses. The harness's
// window (SetWindow) runs between the guard and the first write and
// between writes, where the delay fault holds a write until a newer token
// has been accepted, as in the built-in check-then-set.
//
// A write that is not rejected by its guard is committed whatever its
// last statement says, as the application commits it: a transaction that
// changes the resource in one statement and reports a rejection in the
// next is the application's bug, and fencecheck must see it. How errors
// become outcomes is abort's and commitError's business (and errors.go's).

// checkTx refuses a transaction that could not be run as asked, before
// anything is sent.
func (t *Target) checkTx(user Statements) error {
	if t.mode != "" {
		return nil
	}
	for i, q := range t.before {
		if _, err := shapeOf(q); err != nil {
			return fmt.Errorf("--sql-write %d of %d: %w", i+1, len(t.before)+1, err)
		}
	}
	if user.Guard != "" {
		s, err := shapeOf(t.guard)
		if err == nil && !s.returning && !s.query() {
			err = fmt.Errorf("a guard must return rows (a SELECT, or a statement with RETURNING): a %s returns none, so every write would be rejected", s.kind)
		}
		if err != nil {
			return fmt.Errorf("--sql-guard: %w", err)
		}
	}
	if t.d.name == sqlite.name {
		return t.iso.forSQLite()
	}
	return nil
}

// writeTx runs the user's transaction.
func (t *Target) writeTx(ctx context.Context, a args) (histories.Outcome, error) {
	// On SQLite BEGIN IMMEDIATE takes the write lock: the turn is taken
	// first and held to the end, as the lock is (writeturn.go).
	wctx, cancel := context.WithTimeout(ctx, t.timeout)
	release, err := t.turns.take(wctx)
	cancel()
	if err != nil {
		return 0, err
	}
	defer release()
	conn, err := t.conn(ctx)
	if err != nil {
		return 0, notApplied(err)
	}
	defer conn.Close()
	// The transaction's context bounds all of it, BEGIN and COMMIT
	// included; each statement also has its own deadline.
	tctx, cancel := context.WithTimeout(ctx, time.Duration(len(t.before)+4)*t.timeout)
	defer cancel()
	tx, err := conn.BeginTx(tctx, &sql.TxOptions{Isolation: t.iso.level()})
	if err != nil {
		return 0, notApplied(fmt.Errorf("begin: %w", err))
	}
	out, passed, err := t.runTx(ctx, tx, a)
	switch {
	case err != nil:
		return 0, abort(tx, err)
	case !passed:
		// The guard wrote nothing it returned; whatever else, nothing
		// of the transaction is committed.
		_ = tx.Rollback()
		return histories.Rejected, nil
	}
	if err := tx.Commit(); err != nil {
		return 0, commitError(err)
	}
	return out, nil
}

// runTx runs the guard and the statements inside tx, opening the window
// between them. passed is false when the guard returned no row.
func (t *Target) runTx(ctx context.Context, tx *sql.Tx, a args) (out histories.Outcome, passed bool, err error) {
	held := false // a window precedes every statement after the first
	if t.guard.Text != "" {
		ok, err := t.guardPasses(ctx, tx, a)
		if err != nil || !ok {
			return 0, false, err
		}
		held = true
	}
	for i, q := range t.before {
		if held {
			t.hold(ctx, a)
		}
		held = true
		sctx, cancel := context.WithTimeout(ctx, t.timeout)
		_, err := tx.ExecContext(sctx, t.traced(ctx, q).Text, a.bind(q)...)
		cancel()
		if err != nil {
			return 0, false, fmt.Errorf("statement %d: %w", i+1, classify(err))
		}
	}
	if held {
		t.hold(ctx, a)
	}
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	out, err = t.count.run(sctx, tx, t.traced(ctx, t.write), a)
	if err != nil {
		return 0, false, fmt.Errorf("statement %d: %w", len(t.before)+1, err)
	}
	return out, true, nil
}

// guardPasses runs the guard and reports whether it returned a row.
func (t *Target) guardPasses(ctx context.Context, tx *sql.Tx, a args) (bool, error) {
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	rows, err := tx.QueryContext(sctx, t.traced(ctx, t.guard).Text, a.bind(t.guard)...)
	if err != nil {
		return false, fmt.Errorf("guard: %w", classify(err))
	}
	defer rows.Close()
	found := rows.Next()
	for rows.Next() { // read to the end: MySQL needs the result consumed
	}
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("guard: %w", err)
	}
	return found, rows.Close()
}

// hold opens the harness's window, if it set one.
func (t *Target) hold(ctx context.Context, a args) {
	if t.window != nil {
		t.window(ctx, a.resource, uint64(a.token))
	}
}

// abort rolls tx back after err, which happened before COMMIT was sent,
// and returns err as definitely not applied when nothing of the
// transaction can have been committed:
//   - err already says so (nothing was sent, errors.go);
//   - err is one after which the engine itself rolled back the whole
//     transaction (rolledBack: a serialization failure or a deadlock);
//   - the engine answered our ROLLBACK: a transaction that was rolled
//     back, and never sent COMMIT, changed nothing.
//
// Otherwise (the ROLLBACK got no answer, the connection is lost, the
// deadline passed) the outcome stays unknown. That is conservative: a
// transaction that never sent COMMIT commits nothing on either engine,
// but a statement that commits on its own (MySQL DDL, a procedure with
// COMMIT) or writes outside the transaction (a MySQL table that is not
// InnoDB) would escape; only the engine's word is taken.
func abort(tx *sql.Tx, err error) error {
	rerr := tx.Rollback()
	switch {
	case errors.Is(err, targets.ErrDefinitelyNotApplied):
		return err
	case rolledBack(err):
		return notApplied(err)
	case rerr == nil:
		// The engine confirmed the rollback: the statements are gone.
		return notApplied(fmt.Errorf("%w (rolled back)", err))
	}
	return err
}

// commitError is the outcome of a COMMIT that failed: definitely not
// applied only when the engine answered that it rolled the transaction
// back instead (a serialization failure found at COMMIT, or a COMMIT of a
// transaction that had failed); otherwise unknown, since the COMMIT may
// have taken effect before its answer was lost. That includes
// driver.ErrBadConn: a connection found broken at COMMIT most likely
// never sent it, but the transaction's fate is then the server's, and
// no answer said which.
func commitError(err error) error {
	err = fmt.Errorf("commit: %w", err)
	if rolledBack(err) {
		return notApplied(err)
	}
	return err
}
