package histories

import (
	"fmt"
	"strings"
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

func withValue(e Event, v string) Event   { e.Value, e.HasValue = v, true; return e }
func withToken(e Event, tok uint64) Event { e.Token, e.HasToken = tok, true; return e }

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
			`completion "write" does not match "read" of the invocation at index 0`},
		{"write completion with another value", []Event{inv(0, 0, 1, FWrite, 4, "mine"), withValue(done(1, 1, 1, TypeOK, FWrite, Accepted), "other")},
			`field "value": completion "other" does not match "mine" of the invocation at index 0`},
		{"info completion with another value", []Event{inv(0, 0, 1, FWrite, 4, "mine"), withValue(done(1, 1, 1, TypeInfo, FWrite, OutcomeNone), "")},
			`field "value": completion "" does not match "mine" of the invocation at index 0`},
		{"long values are cut", []Event{inv(0, 0, 1, FWrite, 4, strings.Repeat("a", 1000)), withValue(done(1, 1, 1, TypeFail, FWrite, OutcomeNone), strings.Repeat("b", 1000))},
			`completion "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"…"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" does not match "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"…`},
		{"write completion with another token", []Event{inv(0, 0, 1, FWrite, 4, "v"), withToken(done(1, 1, 1, TypeOK, FWrite, Rejected), 5)},
			`field "token": completion 5 does not match 4 of the invocation at index 0`},
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
	require.Len(t, operations(h), 5)
	ops := operations(h)
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

	c := h.Count()
	assert.Equal(t, Counts{Operations: 5, Writes: 4, Rejected: 1, UnknownWrites: 2, FailedWrites: 1, Reads: 1, Resources: 1, Processes: 5}, c)
}

// TestCompletionMustRepeatItsInvocation: a write completion that repeats
// its invocation's value or token must repeat it unchanged, in both
// readers, so that no history is judged on a token or value its writer
// contradicted; the error names the completion's line and its
// invocation's, so the user finds both. Blank lines make lines and
// indices differ.
func TestCompletionMustRepeatItsInvocation(t *testing.T) {
	t.Parallel()
	invoke := `{"index":0,"time":10,"process":3,"type":"invoke","f":"write","resource":"r","token":7,"value":"mine"}`
	read := `{"index":1,"time":11,"process":4,"type":"invoke","f":"read","resource":"r"}`
	complete := func(fields string) string {
		return `{"index":2,"time":20,"process":3,"type":"ok","f":"write","resource":"r","outcome":"accepted"` + fields + `}`
	}
	readDone := `{"index":3,"time":21,"process":4,"type":"ok","f":"read","resource":"r","token":7,"value":"someone else's"}`
	cases := []struct {
		name, fields, want string
	}{
		{"same value and token", `,"token":7,"value":"mine"`, ""},
		{"neither repeated", ``, ""},
		{"null value", `,"value":null`, ""},
		{"another value", `,"token":7,"value":"yours"`, `h.jsonl:5: field "value": completion "yours" does not match "mine" of the invocation at index 0 (line 2)`},
		{"another token", `,"token":8,"value":"mine"`, `h.jsonl:5: field "token": completion 8 does not match 7 of the invocation at index 0 (line 2)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			content := "\n" + invoke + "\n" + read + "\n\n" + complete(tc.fields) + "\n" + readDone + "\n"
			for _, size := range []int{0, 1, 100, blockBytes} {
				t.Run(fmt.Sprint("block size ", size), func(t *testing.T) {
					var h *History
					var err error
					if size == 0 {
						h, err = readSequential(strings.NewReader(content), "h.jsonl")
					} else {
						h, err = readBlocks(strings.NewReader(content), "h.jsonl", 2, size, 0)
					}
					if tc.want != "" {
						require.Error(t, err)
						assert.Equal(t, tc.want, err.Error())
						return
					}
					require.NoError(t, err)
					require.Len(t, operations(h), 2)
					assert.Equal(t, "mine", operations(h)[0].Value)
					assert.Equal(t, StatusAccepted, operations(h)[0].Status)
				})
			}
		})
	}
}
