package process

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// CheckTokenless implements targets.TokenlessWriter for the inner
// target: a receiver process can be sent writes without a token when
// the target that reaches it can send them.
func (t *Target) CheckTokenless() error {
	_, err := targets.Tokenless(t.Target)
	return err
}

// WriteWithoutToken implements targets.TokenlessWriter through the inner
// target.
func (t *Target) WriteWithoutToken(ctx context.Context, resource, value string) (histories.Outcome, error) {
	w, err := targets.Tokenless(t.Target)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", targets.ErrDefinitelyNotApplied, err)
	}
	return w.WriteWithoutToken(ctx, resource, value)
}
