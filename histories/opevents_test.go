package histories

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompletionOfAnUnknownOutcome: Events gives an info completion for an
// operation whose outcome is unknown, which pairs back to it.
func TestCompletionOfAnUnknownOutcome(t *testing.T) {
	t.Parallel()
	h, err := Pair([]Event{inv(0, 10, 7, FWrite, 5, "x"), done(1, 20, 7, TypeInfo, FWrite, OutcomeNone)})
	require.NoError(t, err)
	op := operations(h)[0]
	inv, done := op.Events()
	assert.Equal(t, TypeInfo, done.Type)
	done.Time = 20 // Return is +∞: the caller chooses the info's time
	again, err := Pair([]Event{inv, done})
	require.NoError(t, err)
	assert.Equal(t, operations(h), operations(again))
}
