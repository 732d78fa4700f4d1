package sqltarget

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
)

// errOwnStatements is why a target with the user's own statements cannot
// write without a token.
var errOwnStatements = errors.New("the write statement is the user's own, written around :token, " +
	"and fencecheck has no statement for a write without a token (a built-in mode has one)")

// CheckTokenless implements targets.TokenlessWriter: the built-in modes
// can, the user's own statements cannot.
func (t *Target) CheckTokenless() error {
	if t.mode == "" {
		return errOwnStatements
	}
	return nil
}

// WriteWithoutToken implements targets.TokenlessWriter, in a built-in
// mode: a plain upsert of the value into the scratch table, with no token
// and no guard, as a service that does not fence would write it. It is
// accepted when the statement ran; its row keeps the token it had (0 for
// a new row), which the workers do not read back (see workload.Strategy).
func (t *Target) WriteWithoutToken(ctx context.Context, resource, value string) (histories.Outcome, error) {
	if err := t.CheckTokenless(); err != nil {
		return 0, notApplied(err)
	}
	sctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	release, err := t.turns.take(sctx)
	if err != nil {
		return 0, t.tokenlessError(resource, err)
	}
	defer release()
	conn, err := t.db.Conn(sctx)
	if err != nil {
		return 0, t.tokenlessError(resource, notApplied(err))
	}
	defer conn.Close()
	// The plain upsert has no RETURNING: its count is read, and ignored.
	if _, err := (counting{}).run(sctx, conn, t.traced(ctx, t.plain), args{resource: resource, value: value}); err != nil {
		return 0, t.tokenlessError(resource, err)
	}
	return histories.Accepted, nil
}

func (t *Target) tokenlessError(resource string, err error) error {
	return fmt.Errorf("write to %s without a token at %s: %w", resource, t.name, redact.Error(err, t.secrets))
}
