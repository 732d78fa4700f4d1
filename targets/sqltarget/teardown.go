package sqltarget

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/internal/redact"
)

// Teardown drops the scratch table, or runs the user's tear-down
// statements: every one of them, even after one failed, so that one
// failure leaves behind no more than it must. The error names what was
// left behind and how to remove it.
//
// It runs on fresh connections. The run's idle connections are closed
// first: after faults and abandoned statements, one may be dead without
// the driver knowing (a backend the server ended, a socket closed under
// a cancelled statement), and database/sql retries a statement on
// another connection only when the driver knows nothing was sent. pgx
// checks an idle connection only after a second of idleness, so a DROP
// sent right after the run's last write on a connection the server had
// ended failed with "unexpected EOF", and the table stayed.
func (t *Target) Teardown(ctx context.Context) error {
	t.db.SetMaxIdleConns(0)
	var errs []error
	for _, stmt := range t.teardown {
		sctx, cancel := context.WithTimeout(ctx, t.timeout)
		_, err := t.db.ExecContext(sctx, stmt)
		cancel()
		if err != nil {
			errs = append(errs, t.leftBehind(stmt, redact.Error(err, t.secrets)))
		}
	}
	return errors.Join(errs...)
}

// leftBehind says what a failed tear-down statement left in the database
// and how to remove it.
func (t *Target) leftBehind(stmt string, err error) error {
	if t.mode != "" {
		return fmt.Errorf("table %s was left behind in %s (%w); remove it with: %s", t.table, t.name, err, stmt)
	}
	return fmt.Errorf("tear-down statement %q failed on %s (%w); whatever it was meant to remove is still there", stmt, t.name, err)
}
