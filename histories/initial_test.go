package histories

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func initialEvent(i int64, resource string, token uint64, value string) Event {
	return Event{Index: i, Time: 10 * i, Process: -1, Actor: actorHarness, F: fInitial, Resource: resource,
		Token: token, HasToken: true, Value: value, HasValue: true}
}

// TestInitialStateBecomesAnAcceptedWriteBeforeEverything: the harness's
// statement of a resource's state before the run pairs into an accepted
// write at InitialTime, which counts leave out (explain's TestEventsOfKeepTheStateBeforeTheRun
// holds that a minimal counterexample keeps it).
func TestInitialStateBecomesAnAcceptedWriteBeforeEverything(t *testing.T) {
	t.Parallel()
	events := []Event{
		inv(0, 5, 0, FRead, 0, ""),
		{Index: 1, Time: 9, Process: 0, Type: TypeOK, F: FRead, Resource: "r", Token: 41, HasToken: true, Value: "old", HasValue: true},
		initialEvent(2, "r", 41, "old"),
		inv(3, 30, 1, FWrite, 42, "new"),
		done(4, 32, 1, TypeOK, FWrite, Accepted),
	}
	h, err := Pair(events)
	require.NoError(t, err)
	require.Len(t, operations(h), 3)
	init := operations(h)[1]
	assert.True(t, init.Initial)
	assert.Equal(t, StatusAccepted, init.Status)
	assert.Equal(t, InitialTime, init.Call)
	assert.Equal(t, InitialTime, init.Return)
	assert.Equal(t, uint64(41), init.Token)
	assert.Equal(t, "old", init.Value)
	assert.Empty(t, h.Others, "the initial state is an operation, not an event for reports")

	c := h.Count()
	assert.Equal(t, 2, c.Operations)
	assert.Equal(t, 1, c.Writes)
	assert.Equal(t, 1, c.Accepted)
}

func TestInitialStateIsValidated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		events []Event
		want   string
	}{
		{"after a write", []Event{inv(0, 0, 1, FWrite, 1, "a"), initialEvent(1, "r", 41, "old")},
			`the initial state of "r" comes after its write at index 0`},
		{"twice", []Event{initialEvent(0, "r", 41, "old"), initialEvent(1, "r", 42, "older")},
			`a second initial state of "r" (the first is at index 0)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Pair(tc.events)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	for _, tc := range []struct{ name, line, want string }{
		{"no resource", `{"index":0,"time":0,"actor":"harness","f":"initial","token":1,"value":"v"}`, `field "resource": missing on the initial state`},
		{"no token", `{"index":0,"time":0,"actor":"harness","f":"initial","resource":"r","value":"v"}`, `field "token": missing on the initial state`},
		{"no value", `{"index":0,"time":0,"actor":"harness","f":"initial","resource":"r","token":1}`, `field "value": missing on the initial state`},
		{"error on an ok completion", `{"index":0,"time":0,"process":0,"type":"ok","f":"read","resource":"r","error":"x"}`, `field "error": only a fail or info completion`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(t.Context(), Source{Path: "h.jsonl", Reader: strings.NewReader(tc.line + "\n")})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "h.jsonl:1: "+tc.want)
		})
	}
}

// TestErrorSummaryKeepsTheFirstOfEachKind: errors that differ only in
// numbers are one kind, quoted by their first occurrence, so a run whose
// every write failed the same way shows one error and its count.
func TestErrorSummaryKeepsTheFirstOfEachKind(t *testing.T) {
	t.Parallel()
	var events []Event
	add := func(p int, f string, typ Type, msg string) {
		i := int64(len(events))
		events = append(events, inv(i, i, p, f, uint64(p+1), "v"+string(rune('a'+p))))
		done := Event{Index: i + 1, Time: i + 1, Process: p, Type: typ, F: f, Resource: "r", Error: msg}
		events = append(events, done)
	}
	add(0, FWrite, TypeInfo, "write token 1 to r0: status 503: overloaded")
	add(1, FWrite, TypeInfo, "write token 2 to r1: status 503: overloaded")
	add(2, FWrite, TypeFail, `relation "resutls" does not exist`)
	add(3, FRead, TypeInfo, "read r0: connection reset")
	h, err := Pair(events)
	require.NoError(t, err)
	require.Len(t, h.Errors.Kinds, 3)
	assert.Equal(t, "write token 1 to r0: status 503: overloaded", h.Errors.Kinds[0].Example)
	assert.Equal(t, 2, h.Errors.Kinds[0].Count)
	assert.Equal(t, FWrite, h.Errors.Kinds[1].F)
	assert.Equal(t, FRead, h.Errors.Kinds[2].F)
	assert.Equal(t, 1, h.Errors.Kinds[1].Count)
	assert.Equal(t, 1, h.Errors.Kinds[2].Count)
	assert.Zero(t, h.Errors.Other, "every error is of a kind kept")
}
