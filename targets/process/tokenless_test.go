package process

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/memory"
)

// plainTarget is a target with no way to write without a token.
type plainTarget struct{ targets.Target }

// TestTokenlessGoesToTheInnerTarget: a receiver process takes writes
// without a token exactly when the target that reaches it does.
func TestTokenlessGoesToTheInnerTarget(t *testing.T) {
	t.Parallel()
	w, err := targets.Tokenless(NewTarget(memory.NewFenced(), nil))
	require.NoError(t, err)
	out, err := w.WriteWithoutToken(context.Background(), "r", "v")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)

	_, err = targets.Tokenless(NewTarget(plainTarget{memory.NewFenced()}, nil))
	require.ErrorIs(t, err, targets.ErrNoTokenless)
}
