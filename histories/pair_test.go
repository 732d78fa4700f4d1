package histories

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func inv(i, tm int64, p int, f string, tok uint64, val string) Event {
	e := Event{Index: i, Time: tm, Process: p, Type: TypeInvoke, F: f, Resource: "r"}
	if f == FWrite {
		e.Token, e.HasToken, e.Value, e.HasValue = tok, true, val, true
	}
	return e
}

func done(i, tm int64, p int, typ Type, f string, out Outcome) Event {
	return Event{Index: i, Time: tm, Process: p, Type: typ, F: f, Resource: "r", Outcome: out}
}

func TestPairRejectsInvalidHistories(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		events []Event
		want   string
	}{
		{"two operations in flight", []Event{inv(0, 0, 1, FRead, 0, ""), inv(1, 1, 1, FRead, 0, "")},
			"process\": 1 invoked index 1 while its operation from index 0 was still in flight"},
		{"completion without invocation", []Event{done(0, 0, 2, TypeOK, FRead, OutcomeNone)},
			"2 completes with ok at index 0 but has no invocation in flight"},
		{"time going backwards", []Event{inv(0, 10, 1, FRead, 0, ""), done(1, 9, 1, TypeOK, FRead, OutcomeNone)},
			"time\": goes backwards: 9 after 10"},
		{"index not increasing", []Event{inv(3, 0, 1, FRead, 0, ""), done(3, 1, 1, TypeOK, FRead, OutcomeNone)},
			"index\": 3 does not increase"},
		{"process reused after unknown outcome", []Event{inv(0, 0, 1, FRead, 0, ""), done(1, 1, 1, TypeInfo, FRead, OutcomeNone), inv(2, 2, 1, FRead, 0, "")},
			"1 reused after its unknown outcome at index 1"},
		{"completion of another function", []Event{inv(0, 0, 1, FRead, 0, ""), done(1, 1, 1, TypeOK, FWrite, Accepted)},
			`completion "write" does not match invocation "read"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Pair(tc.events)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestPairOutcomes(t *testing.T) {
	t.Parallel()
	events := []Event{
		inv(0, 0, 0, FWrite, 41, "a"),
		inv(1, 1, 1, FWrite, 42, "b"),
		inv(2, 2, 2, FWrite, 43, "c"),
		inv(3, 3, 3, FRead, 0, ""),
		done(4, 4, 0, TypeOK, FWrite, Rejected),
		done(5, 5, 1, TypeInfo, FWrite, OutcomeNone),
		done(6, 6, 2, TypeFail, FWrite, OutcomeNone),
		{Index: 7, Time: 7, Process: 3, Type: TypeOK, F: FRead, Resource: "r", Value: "b", HasValue: true, Token: 42, HasToken: true},
		{Index: 8, Time: 8, Process: -1, Actor: ActorLease, F: FExpire, Resource: "r", Token: 41, HasToken: true},
		inv(9, 9, 4, FWrite, 44, "d"), // never completes
	}
	h, err := Pair(events)
	require.NoError(t, err)
	require.Len(t, h.Operations, 5)
	ops := h.Operations
	assert.Equal(t, StatusRejected, ops[0].Status)
	assert.Equal(t, int64(4), ops[0].Return)
	assert.Equal(t, StatusUnknown, ops[1].Status, "info is an unknown outcome")
	assert.Equal(t, Infinity, ops[1].Return, "an unknown outcome returns at +∞")
	assert.Equal(t, StatusFailed, ops[2].Status)
	assert.Equal(t, StatusOK, ops[3].Status)
	assert.Equal(t, "b", ops[3].Value)
	assert.Equal(t, uint64(42), ops[3].Token)
	assert.Equal(t, StatusUnknown, ops[4].Status, "a missing completion is an unknown outcome")
	assert.Equal(t, Infinity, ops[4].Return)
	assert.Equal(t, int64(-1), ops[4].CompleteIndex)
	require.Len(t, h.Others, 1)
	assert.Equal(t, ActorLease, h.Others[0].Actor)

	c := Count(ops)
	assert.Equal(t, Counts{Operations: 5, Writes: 4, Rejected: 1, UnknownWrites: 2, FailedWrites: 1, Reads: 1, Resources: 1, Processes: 5}, c)
}
