package explain

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

func invoke(i, tm int64, p int, f string, tok uint64, val string) histories.Event {
	e := histories.Event{Index: i, Time: tm, Process: p, Type: histories.TypeInvoke, F: f, Resource: "r"}
	if f == histories.FWrite {
		e.Token, e.HasToken, e.Value, e.HasValue = tok, true, val, true
	}
	return e
}

func complete(i, tm int64, p int, typ histories.Type, f string, out histories.Outcome) histories.Event {
	return histories.Event{Index: i, Time: tm, Process: p, Type: typ, F: f, Resource: "r", Outcome: out}
}

// TestEventsOfRebuildsTheHistory: the events a minimal counterexample is
// written with pair to the same operations, and are the original events
// where the original had no info completion (an unknown outcome is
// written without a completion, which reads the same). They are numbered
// from histories.FirstIndex, after the header histories.Write puts
// before them.
func TestEventsOfRebuildsTheHistory(t *testing.T) {
	t.Parallel()
	lease := histories.Event{Index: 8, Time: 7, Process: -1, Actor: histories.ActorLease, F: histories.FExpire, Resource: "r", Token: 41, HasToken: true}
	events := []histories.Event{
		invoke(1, 0, 0, histories.FWrite, 41, "a"),
		invoke(2, 1, 1, histories.FWrite, 42, "b"),
		invoke(3, 2, 2, histories.FWrite, 43, "c"),
		invoke(4, 3, 3, histories.FRead, 0, ""),
		{Index: 5, Time: 4, Process: 0, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: 41, HasToken: true, Value: "a", HasValue: true, Outcome: histories.Rejected},
		{Index: 6, Time: 5, Process: 1, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: 42, HasToken: true, Value: "b", HasValue: true, Outcome: histories.Accepted},
		complete(7, 6, 2, histories.TypeFail, histories.FWrite, histories.OutcomeNone),
		lease,
		{Index: 9, Time: 8, Process: 3, Type: histories.TypeOK, F: histories.FRead, Resource: "r", Value: "b", HasValue: true, Token: 42, HasToken: true},
		invoke(10, 9, 4, histories.FWrite, 44, "d"), // never completes
	}
	h, err := histories.Pair(events)
	require.NoError(t, err)
	rebuilt := eventsOf(h.Expand(nil), []histories.Event{lease})
	assert.Equal(t, events, rebuilt)
	again, err := histories.Pair(rebuilt)
	require.NoError(t, err)
	assert.Equal(t, h.Expand(nil), again.Expand(nil))
}

// TestEventsOfWriteAHeaderedHistory: a minimal counterexample written
// with histories.Write is a history of the current format that reads
// back to its operations.
func TestEventsOfWriteAHeaderedHistory(t *testing.T) {
	t.Parallel()
	h, err := histories.Pair([]histories.Event{histories.Header(), invoke(1, 10, 0, histories.FWrite, 41, "a"),
		complete(2, 20, 0, histories.TypeOK, histories.FWrite, histories.Accepted)})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, histories.Write(&buf, eventsOf(h.Expand(nil), nil)))
	back, err := histories.Read(t.Context(), histories.Source{Path: "minimal.jsonl", Reader: &buf})
	require.NoError(t, err)
	assert.EqualValues(t, histories.Header().Format, back.Format)
	assert.Equal(t, h.Expand(nil), back.Expand(nil))
}

// TestEventsOfKeepTheStateBeforeTheRun: a minimal counterexample keeps a
// resource's state before the run as the harness's statement of it, so
// that minimal.jsonl still starts from it.
func TestEventsOfKeepTheStateBeforeTheRun(t *testing.T) {
	t.Parallel()
	events := []histories.Event{
		invoke(1, 5, 0, histories.FRead, 0, ""),
		{Index: 2, Time: 9, Process: 0, Type: histories.TypeOK, F: histories.FRead, Resource: "r", Token: 41, HasToken: true, Value: "old", HasValue: true},
		histories.InitialState("r", "old", 41, ""),
		invoke(4, 30, 1, histories.FWrite, 42, "new"),
		complete(5, 32, 1, histories.TypeOK, histories.FWrite, histories.Accepted),
	}
	events[2].Index, events[2].Time = 3, 20
	h, err := histories.Pair(events)
	require.NoError(t, err)
	ops := h.Expand(nil)
	require.Len(t, ops, 3)
	require.True(t, ops[1].Initial)

	sub := eventsOf(ops[1:], nil)
	require.Len(t, sub, 3)
	var buf bytes.Buffer
	require.NoError(t, histories.Write(&buf, sub))
	again, err := histories.Read(t.Context(), histories.Source{Path: "minimal.jsonl", Reader: &buf})
	require.NoError(t, err, buf.String())
	require.Len(t, again.Expand(nil), 2)
	assert.True(t, again.Expand(nil)[0].Initial)
	assert.Equal(t, "old", again.Expand(nil)[0].Value)
}
