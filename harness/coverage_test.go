package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/histories"
)

func TestCoverage(t *testing.T) {
	t.Parallel()
	ev := func(i int64, e histories.Event) histories.Event { e.Index, e.Time = i, i*10; return e }
	inv := func(p int, tok uint64, v string) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Value: v, HasValue: true}
	}
	ok := func(p int, tok uint64, out histories.Outcome) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Outcome: out}
	}
	grant := func(tok uint64, holder int) histories.Event {
		return histories.Event{Process: -1, Actor: histories.ActorLease, F: histories.FAcquire, Resource: "r", Token: tok, HasToken: true, Holder: holder, HasHolder: true}
	}
	events := []histories.Event{
		grant(1, 0),                  // 0
		inv(0, 1, "a"),               // 1 A sends with token 1
		grant(2, 1),                  // 2 lease reassigned while A's write travels
		ok(0, 1, histories.Accepted), // 3 accepted: old token first (allowed)
		inv(1, 2, "b"),               // 4
		ok(1, 2, histories.Accepted), // 5
		inv(1, 2, "b2"),              // 6 B repeats its token
		ok(1, 2, histories.Rejected), // 7
		inv(2, 1, "late"),            // 8 A again with token 1: stale, and sent after reassignment
		ok(2, 1, histories.Rejected), // 9
		{Process: -1, Actor: histories.ActorNemesis, F: histories.FBegin, Fault: "pause"}, // 10
	}
	for i := range events {
		events[i] = ev(int64(i), events[i])
	}
	h, err := histories.Pair(events)
	assert.NoError(t, err)
	cov, excl := measureCoverage(h)
	assert.Equal(t, 1, cov.StaleWrites)
	assert.Equal(t, 1, cov.StaleRejected)
	assert.Equal(t, 2, cov.EqualTokenRepeats, "B repeats 2, and the late write repeats 1")
	assert.Equal(t, 0, cov.EqualTokenAccepted)
	assert.Equal(t, 1, cov.OldTokenFirst)
	assert.Empty(t, excl, "A's first write was sent before the reassignment")
	assert.Equal(t, map[string]int{"r": 2}, cov.RejectedByResource)
	assert.Equal(t, 2, cov.LeaseGrants)
	assert.Equal(t, map[string]int{"pause": 1}, cov.FaultActions)

	// Sent after the reassignment and accepted: the exclusive requirement
	// fails, fencing does not.
	events[8] = ev(8, inv(2, 1, "late"))
	events[9] = ev(9, ok(2, 1, histories.Accepted))
	events = append(events[:4], events[8:10]...) // drop B's writes: token 2 never reached the resource
	for i := range events {
		events[i] = ev(int64(i), events[i])
	}
	h, err = histories.Pair(events)
	assert.NoError(t, err)
	cov, excl = measureCoverage(h)
	assert.Equal(t, 0, cov.StaleWrites)
	assert.Equal(t, 2, cov.OldTokenFirst)
	if assert.Len(t, excl, 1) {
		assert.Equal(t, uint64(1), excl[0].Token)
		assert.Equal(t, uint64(2), excl[0].NewerToken)
	}
}
