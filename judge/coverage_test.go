package judge

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	cov, excl := measure(h, nil)
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
	cov, excl = measure(h, nil)
	assert.Equal(t, 0, cov.StaleWrites)
	assert.Equal(t, 2, cov.OldTokenFirst)
	if assert.Len(t, excl, 1) {
		assert.Equal(t, uint64(1), excl[0].Token)
		assert.Equal(t, uint64(2), excl[0].NewerToken)
	}
}

// TestExclusiveSeesTheIssuersEnd: a write sent after its lease ended on
// the issuer breaks the exclusive requirement even when no newer owner
// was granted yet; one sent before the end, or after a later grant of
// the same token that has not ended (an issuer that reused the token),
// does not; each violation says how and when its lease ended.
func TestExclusiveSeesTheIssuersEnd(t *testing.T) {
	t.Parallel()
	lease := func(f string, tok uint64) histories.Event {
		return histories.Event{Process: -1, Actor: histories.ActorLease, F: f, Resource: "r", Token: tok, HasToken: true, Holder: 0, HasHolder: true}
	}
	write := func(p int, tok uint64, v string) []histories.Event {
		return []histories.Event{
			{Process: p, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Value: v, HasValue: true},
			{Process: p, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Outcome: histories.Accepted},
		}
	}
	cases := []struct {
		name   string
		events [][]histories.Event
		want   []ExclusiveViolation
	}{
		{"sent before its lease expired", [][]histories.Event{{lease(histories.FAcquire, 1)}, write(0, 1, "a"), {lease(histories.FExpire, 1)}}, nil},
		{"sent after its lease expired, no newer owner yet", [][]histories.Event{{lease(histories.FAcquire, 1)}, {lease(histories.FExpire, 1)}, write(0, 1, "a")},
			[]ExclusiveViolation{{OpID: 0, Resource: "r", Token: 1, LeaseEnded: 10, LeaseEnd: histories.FExpire, Call: 20}}},
		{"sent after its lease was revoked and reassigned", [][]histories.Event{{lease(histories.FAcquire, 1)}, {lease(histories.FRevoke, 1)}, {lease(histories.FAcquire, 2)}, write(0, 1, "a")},
			[]ExclusiveViolation{{OpID: 0, Resource: "r", Token: 1, NewerToken: 2, LeaseEnded: 10, LeaseEnd: histories.FRevoke, Call: 30}}},
		{"the same token granted again and still held", [][]histories.Event{{lease(histories.FAcquire, 1)}, {lease(histories.FExpire, 1)}, {lease(histories.FAcquire, 1)}, write(0, 1, "a")}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var events []histories.Event
			for _, group := range tc.events {
				events = append(events, group...)
			}
			for i := range events {
				events[i].Index, events[i].Time = int64(i), int64(i)*10
			}
			h, err := histories.Pair(events)
			assert.NoError(t, err)
			_, excl := measure(h, nil)
			assert.Equal(t, tc.want, excl)
			for _, x := range excl {
				t.Log(x)
			}
		})
	}
}

// TestConcurrentWrites: a write counts as concurrent when another write
// on its resource was invoked before it and had not completed (or never
// did): the interleavings a check-then-write race needs. Writes on
// other resources and reads do not count; a failed write took no
// effect, so it does not count itself, though it was in flight.
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	inv := func(p int, res string, tok uint64) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeInvoke, F: histories.FWrite, Resource: res, Token: tok, HasToken: true, Value: fmt.Sprint(res, tok), HasValue: true}
	}
	ok := func(p int, res string, tok uint64) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeOK, F: histories.FWrite, Resource: res, Token: tok, HasToken: true, Outcome: histories.Accepted}
	}
	fail := func(p int, res string, tok uint64) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeFail, F: histories.FWrite, Resource: res, Token: tok, HasToken: true}
	}
	cases := []struct {
		name   string
		events []histories.Event
		want   int
	}{
		{"one after another", []histories.Event{inv(0, "r", 1), ok(0, "r", 1), inv(1, "r", 2), ok(1, "r", 2)}, 0},
		{"overlapping", []histories.Event{inv(0, "r", 1), inv(1, "r", 2), ok(0, "r", 1), ok(1, "r", 2)}, 1},
		{"three at once", []histories.Event{inv(0, "r", 1), inv(1, "r", 2), inv(2, "r", 3), ok(0, "r", 1), ok(1, "r", 2), ok(2, "r", 3)}, 2},
		{"another resource", []histories.Event{inv(0, "r", 1), inv(1, "s", 2), ok(0, "r", 1), ok(1, "s", 2)}, 0},
		{"a failed write was in flight", []histories.Event{inv(0, "r", 1), inv(1, "r", 2), fail(0, "r", 1), ok(1, "r", 2)}, 1},
		{"a failed write does not count itself", []histories.Event{inv(0, "r", 1), inv(1, "r", 2), ok(0, "r", 1), fail(1, "r", 2)}, 0},
		{"an unknown write stays in flight", []histories.Event{inv(0, "r", 1), inv(1, "r", 2), ok(1, "r", 2), inv(2, "r", 3), ok(2, "r", 3)}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for i := range tc.events {
				tc.events[i].Index, tc.events[i].Time = int64(i), int64(i)*10
			}
			h, err := histories.Pair(tc.events)
			require.NoError(t, err)
			cov, _ := measure(h, nil)
			assert.Equal(t, tc.want, cov.ConcurrentWrites)
		})
	}
}

// TestStaleAfterCrash: a stale write tests whether the receiver keeps its
// highest token across a crash only when it is sent after the crash, its
// newer token was accepted before it, and the restarted receiver
// answered it. The whole-history measure and the meter agree on each.
func TestStaleAfterCrash(t *testing.T) {
	t.Parallel()
	inv := func(p int, tok uint64) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Value: fmt.Sprint("v", tok), HasValue: true}
	}
	ok := func(p int, tok uint64, out histories.Outcome) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Outcome: out}
	}
	info := func(p int) histories.Event {
		return histories.Event{Process: p, Type: histories.TypeInfo, F: histories.FWrite, Resource: "r"}
	}
	crash := histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FCrash, Fault: "kill"}
	restarted := histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FEnd, Fault: "kill"}
	for _, tc := range []struct {
		name   string
		events []histories.Event
		stale  int
		after  int
	}{
		{"the article's timeline: 42 accepted, a crash, 41 answered", []histories.Event{
			inv(1, 42), ok(1, 42, histories.Accepted), crash, restarted, inv(0, 41), ok(0, 41, histories.Rejected)}, 1, 1},
		{"a forgetful receiver accepts it, which counts the same", []histories.Event{
			inv(1, 42), ok(1, 42, histories.Accepted), crash, restarted, inv(0, 41), ok(0, 41, histories.Accepted)}, 1, 1},
		{"no crash between them", []histories.Event{
			crash, restarted, inv(1, 42), ok(1, 42, histories.Accepted), inv(0, 41), ok(0, 41, histories.Rejected)}, 1, 0},
		{"sent before the crash", []histories.Event{
			inv(1, 42), ok(1, 42, histories.Accepted), inv(0, 41), crash, ok(0, 41, histories.Rejected), restarted}, 1, 0},
		{"its answer lost", []histories.Event{
			inv(1, 42), ok(1, 42, histories.Accepted), crash, restarted, inv(0, 41), info(0)}, 1, 0},
		{"the newer token accepted only after the crash", []histories.Event{
			inv(1, 42), crash, restarted, ok(1, 42, histories.Accepted), inv(0, 41), ok(0, 41, histories.Rejected)}, 1, 0},
		{"two crashes, the newer token between them", []histories.Event{
			crash, restarted, inv(1, 42), ok(1, 42, histories.Accepted), crash, restarted, inv(0, 41), ok(0, 41, histories.Rejected)}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := slices.Clone(tc.events)
			for i := range events {
				events[i].Index, events[i].Time = int64(i+1), int64(10*(i+1))
			}
			h, err := histories.Pair(events)
			require.NoError(t, err)
			cov, _ := measure(h, nil)
			assert.Equal(t, tc.stale, cov.StaleWrites)
			assert.Equal(t, tc.after, cov.StaleAfterCrash)
			assert.Equal(t, slices.IndexFunc(events, func(e histories.Event) bool { return e.F == histories.FCrash }) >= 0, cov.Crashes > 0)
			m := newMeter(nil)
			f := histories.NewFollower(meterSink{m})
			for i := range events {
				require.NoError(t, f.Add(&events[i]))
			}
			f.Finish()
			assert.Equal(t, tc.after, m.cov.StaleAfterCrash, "the meter")
		})
	}
}
