package sqltarget

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencecheck/fencecheck/targets"
)

// An error from a write is an unknown outcome: the statement may have been
// applied even though no answer came back. That covers connection errors
// after the statement was sent, timeouts and cancellations, and also
// serialization failures and deadlocks. For a single autocommit statement
// the engine did roll those back, so fail would be accurate there, but a
// user's write may reach beyond one transaction (a function, a trigger on
// a non-transactional table), and an unknown outcome is never wrong: the
// checker considers both possibilities, so it can hide a violation but
// never invent one.
//
// A write is definitely not applied, and wraps targets.ErrDefinitelyNotApplied
// (recorded as fail), only when the statement that would change the
// resource never left this process:
//   - the token does not fit the column (checked before anything is sent);
//   - no connection could be had from the pool (a dial error, the pool's
//     context expired while waiting);
//   - the driver answered driver.ErrBadConn, which database/sql's contract
//     reserves for a connection found broken before the statement was
//     sent (pgx and go-sql-driver/mysql both keep to it);
//   - check-then-set failed at BEGIN or at its read, before its update.
//
// Inside a transaction (check-then-set, the user's own: tx.go), fencecheck
// sends COMMIT itself, and more is definitely not applied: an error before
// COMMIT after which the engine rolled the transaction back (rolledBack)
// or answered the ROLLBACK (abort), and a COMMIT the engine answered with
// a rollback (commitError). A COMMIT without such an answer stays unknown.
func notApplied(err error) error {
	return fmt.Errorf("%w: %w", targets.ErrDefinitelyNotApplied, err)
}

// classify marks err as definitely not applied when the driver says the
// statement was never sent, and leaves it an unknown outcome otherwise.
func classify(err error) error {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) {
		return notApplied(err)
	}
	return err
}

// rolledBack reports whether err is the engine's word that it rolled back
// the whole transaction, so that nothing of it can commit, even when the
// connection is lost right after:
//   - PostgreSQL 40001 (serialization_failure) and 40P01
//     (deadlock_detected), whether from a statement or from COMMIT (a
//     SERIALIZABLE transaction can fail there): the transaction is
//     aborted, and a later COMMIT only rolls it back;
//   - pgx.ErrTxCommitRollback: the server answered COMMIT with ROLLBACK
//     (the transaction had already failed);
//   - MySQL/MariaDB 1213 (ER_LOCK_DEADLOCK): InnoDB rolls back the whole
//     transaction it chose as the victim.
//
// Not MySQL 1205 (ER_LOCK_WAIT_TIMEOUT): by default
// (innodb_rollback_on_timeout=OFF) InnoDB rolls back only the statement
// that waited, and the transaction's earlier statements stay, to be
// committed or not by the client; fencecheck then rolls back itself (see
// abort). Not any other PostgreSQL error either, although every error
// aborts a PostgreSQL transaction: an error at COMMIT can come after the
// commit was made durable (a FATAL while waiting for a synchronous
// standby), so only the codes that mean a rollback count.
func rolledBack(err error) bool {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == pgSerializationFailure || pg.Code == pgDeadlockDetected
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		return my.Number == mysqlLockDeadlock
	}
	return errors.Is(err, pgx.ErrTxCommitRollback)
}

// The error codes rolledBack knows.
const (
	pgSerializationFailure = "40001"
	pgDeadlockDetected     = "40P01"
	mysqlLockDeadlock      = 1213
)
