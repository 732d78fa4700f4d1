package redistarget

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/redact"
)

// errOwnScript is why a target with the user's own script cannot write
// without a token.
var errOwnScript = errors.New("the write is the user's own script, written around the token, " +
	"and fencecheck has no script for a write without a token (a built-in mode has one)")

// CheckTokenless implements targets.TokenlessWriter: the built-in modes
// can, the user's own script cannot.
func (t *Target) CheckTokenless() error {
	if t.mode == "" {
		return errOwnScript
	}
	return nil
}

// WriteWithoutToken implements targets.TokenlessWriter, in a built-in
// mode: HSET of the value alone, with no token and no check, as a service
// that does not fence would write it. The hash keeps the token it had, or
// gets 0 when it is new (HSETNX, in the same MULTI), as the SQL target's
// new row does, so that every read of the layout has a token; the workers
// do not read it back (see workload.Strategy).
func (t *Target) WriteWithoutToken(ctx context.Context, resource, value string) (histories.Outcome, error) {
	if err := t.CheckTokenless(); err != nil {
		return 0, notApplied(err)
	}
	key := t.key(resource)
	_, err := t.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSetNX(ctx, key, fieldToken, "0")
		p.HSet(ctx, key, fieldValue, value)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("write to %s without a token at %s: %w", resource, t.name, redact.Error(classify(err), t.secrets))
	}
	return histories.Accepted, nil
}
