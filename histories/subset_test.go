package histories

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSubsetRebuildsTheHistory: the events Subset rebuilds from paired
// operations pair to the same operations, and are the original events
// where the original had no info completion (Subset writes an unknown
// outcome without a completion, which reads the same). They are numbered
// from FirstIndex, after the header Write puts before them.
func TestSubsetRebuildsTheHistory(t *testing.T) {
	t.Parallel()
	lease := Event{Index: 8, Time: 7, Process: -1, Actor: ActorLease, F: FExpire, Resource: "r", Token: 41, HasToken: true}
	events := []Event{
		inv(1, 0, 0, FWrite, 41, "a"),
		inv(2, 1, 1, FWrite, 42, "b"),
		inv(3, 2, 2, FWrite, 43, "c"),
		inv(4, 3, 3, FRead, 0, ""),
		{Index: 5, Time: 4, Process: 0, Type: TypeOK, F: FWrite, Resource: "r", Token: 41, HasToken: true, Value: "a", HasValue: true, Outcome: Rejected},
		{Index: 6, Time: 5, Process: 1, Type: TypeOK, F: FWrite, Resource: "r", Token: 42, HasToken: true, Value: "b", HasValue: true, Outcome: Accepted},
		done(7, 6, 2, TypeFail, FWrite, OutcomeNone),
		lease,
		{Index: 9, Time: 8, Process: 3, Type: TypeOK, F: FRead, Resource: "r", Value: "b", HasValue: true, Token: 42, HasToken: true},
		inv(10, 9, 4, FWrite, 44, "d"), // never completes
	}
	h, err := Pair(events)
	require.NoError(t, err)
	rebuilt := Subset(operations(h), []Event{lease})
	assert.Equal(t, events, rebuilt)
	again, err := Pair(rebuilt)
	require.NoError(t, err)
	assert.Equal(t, operations(h), operations(again))
}

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
