package sqltarget

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/targets"
)

// TestWriteTurns checks that one writer has the turn at a time, that a
// writer that could not have it before its deadline was never sent, and
// that a server's nil turns never wait.
func TestWriteTurns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		turns writeTurns
		held  bool // another writer has the turn
		want  error
	}{
		{"free", newWriteTurns(), false, nil},
		{"taken, deadline passes", newWriteTurns(), true, targets.ErrDefinitelyNotApplied},
		{"server", nil, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.held {
				release, err := tc.turns.take(context.Background())
				require.NoError(t, err)
				defer release()
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // a turn not free now is not had
			release, err := tc.turns.take(ctx)
			if tc.want != nil {
				require.Error(t, err)
				assert.True(t, errors.Is(err, tc.want), "%v", err)
				assert.True(t, errors.Is(err, context.Canceled), "%v", err)
				return
			}
			require.NoError(t, err)
			release()
		})
	}
}

// TestWriteTurnPassesOn checks that a released turn goes to the writer
// waiting for it.
func TestWriteTurnPassesOn(t *testing.T) {
	t.Parallel()
	turns := newWriteTurns()
	release, err := turns.take(context.Background())
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		r, err := turns.take(context.Background())
		if err == nil {
			r()
		}
		got <- err
	}()
	release()
	require.NoError(t, <-got)
}
