package sqltarget

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

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
