package check

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// leaseEvents builds lease events in history order, indexes from 0.
type leaseEvents []histories.Event

func (l leaseEvents) add(f, resource string, token uint64, worker int) leaseEvents {
	return append(l, histories.Event{Index: int64(len(l)), Process: -1, Actor: histories.ActorLease, F: f,
		Resource: resource, Token: token, HasToken: true, Holder: worker, HasHolder: true})
}

// leader appends a fault's leader change.
func (l leaseEvents) leader(fault, detail string) leaseEvents {
	return append(l, histories.Event{Index: int64(len(l)), Process: -1, Actor: histories.ActorNemesis, F: histories.FLeader, Fault: fault, Detail: detail})
}

func (l leaseEvents) grant(resource string, token uint64, worker int) leaseEvents {
	return l.add(histories.FAcquire, resource, token, worker)
}

func TestCheckIssuer(t *testing.T) {
	t.Parallel()
	nemesis := histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FStart, Fault: "pause"}
	restore := histories.Event{Index: 1, Process: -1, Actor: histories.ActorNemesis, F: histories.FRestore, Fault: "issuer-restore", Detail: "revision went back from 60 to 40"}
	restored := histories.Event{Index: 3, Process: -1, Actor: histories.ActorNemesis, F: histories.FEnd, Fault: "issuer-restore", Detail: "serves again"}
	noToken := histories.Event{Process: -1, Actor: histories.ActorLease, F: histories.FAcquire, Resource: "r1", Holder: 4, HasHolder: true}
	cases := []struct {
		name   string
		events leaseEvents
		want   []IssuerViolation
	}{
		{name: "no events"},
		{name: "increasing grants", events: leaseEvents{}.grant("r1", 1, 0).grant("r1", 2, 1).grant("r1", 7, 0).grant("r1", 1<<53, 2)},
		{name: "reused token to two workers", events: leaseEvents{}.grant("r1", 56, 2).grant("r1", 57, 3).grant("r1", 57, 5),
			want: []IssuerViolation{{Kind: Reused, Resource: "r1", Token: 57, Earlier: 57, Index: 2, EarlierIndex: 1, Holder: 5, EarlierHolder: 3}}},
		{name: "reused token to the same worker", events: leaseEvents{}.grant("r1", 57, 3).grant("r1", 57, 3),
			want: []IssuerViolation{{Kind: Reused, Resource: "r1", Token: 57, Earlier: 57, Index: 1, EarlierIndex: 0, Holder: 3, EarlierHolder: 3}}},
		{name: "reused older token", events: leaseEvents{}.grant("r1", 41, 1).grant("r1", 57, 2).grant("r1", 41, 3),
			want: []IssuerViolation{{Kind: Reused, Resource: "r1", Token: 41, Earlier: 41, Index: 2, EarlierIndex: 0, Holder: 3, EarlierHolder: 1}}},
		{name: "lower token after a higher", events: leaseEvents{}.grant("r1", 57, 1).grant("r1", 41, 2),
			want: []IssuerViolation{{Kind: NotIncreasing, Resource: "r1", Token: 41, Earlier: 57, Index: 1, EarlierIndex: 0, Holder: 2, EarlierHolder: 1}}},
		{name: "each grant below the highest is reported against it",
			events: leaseEvents{}.grant("r1", 57, 1).grant("r1", 41, 2).grant("r1", 42, 3).grant("r1", 58, 4),
			want: []IssuerViolation{
				{Kind: NotIncreasing, Resource: "r1", Token: 41, Earlier: 57, Index: 1, EarlierIndex: 0, Holder: 2, EarlierHolder: 1},
				{Kind: NotIncreasing, Resource: "r1", Token: 42, Earlier: 57, Index: 2, EarlierIndex: 0, Holder: 3, EarlierHolder: 1},
			}},
		{name: "resources are independent", events: leaseEvents{}.grant("r1", 5, 0).grant("r2", 1, 1).grant("r2", 5, 2).grant("r1", 6, 1)},
		{name: "a violation on one resource only", events: leaseEvents{}.grant("r1", 5, 0).grant("r2", 5, 1).grant("r2", 5, 2).grant("r1", 6, 1),
			want: []IssuerViolation{{Kind: Reused, Resource: "r2", Token: 5, Earlier: 5, Index: 2, EarlierIndex: 1, Holder: 2, EarlierHolder: 1}}},
		{name: "renew, expire, release and revoke grant nothing",
			events: leaseEvents{}.grant("r1", 5, 0).add(histories.FRenew, "r1", 5, 0).add(histories.FExpire, "r1", 5, 0).
				add(histories.FRelease, "r1", 5, 0).add(histories.FRevoke, "r1", 5, 0).grant("r1", 6, 1).add(histories.FRenew, "r1", 6, 1)},
		{name: "a token granted again after a failover names the leader change",
			events: leaseEvents{}.grant("r1", 4, 0).leader("issuer-failover", "the leader is now r1").grant("r1", 4, 1),
			want: []IssuerViolation{{Kind: Reused, Resource: "r1", Token: 4, Earlier: 4, Index: 2, EarlierIndex: 0, Holder: 1, EarlierHolder: 0,
				After: "issuer-failover: the leader is now r1"}}},
		{name: "a leader change before both grants is not named",
			events: leaseEvents{}.leader("issuer-kill", "the leader is now m1").grant("r1", 4, 0).grant("r1", 4, 1),
			want:   []IssuerViolation{{Kind: Reused, Resource: "r1", Token: 4, Earlier: 4, Index: 2, EarlierIndex: 1, Holder: 1, EarlierHolder: 0}}},
		{name: "nemesis events and grants without a token are ignored",
			events: append(leaseEvents{}.grant("r1", 5, 0), nemesis, noToken).grant("r1", 6, 1)},
		{name: "a restore between the two grants is named",
			events: append(leaseEvents{}.grant("r1", 57, 1), restore).grant("r1", 41, 2),
			want: []IssuerViolation{{Kind: NotIncreasing, Resource: "r1", Token: 41, Earlier: 57, Index: 2, EarlierIndex: 0, Holder: 2, EarlierHolder: 1,
				Restore: "revision went back from 60 to 40 (issuer-restore, index 1)"}}},
		{name: "a restore whose end is recorded after both grants is named, in its end's words",
			events: append(append(leaseEvents{}.grant("r1", 57, 1), restore).grant("r1", 41, 2), restored),
			want: []IssuerViolation{{Kind: NotIncreasing, Resource: "r1", Token: 41, Earlier: 57, Index: 2, EarlierIndex: 0, Holder: 2, EarlierHolder: 1,
				Restore: "serves again (issuer-restore, index 1)"}}},
		{name: "a restore that ended before both grants is not",
			events: append(append(leaseEvents{}.grant("r2", 1, 1), restore), restored).grant("r1", 57, 1).grant("r1", 57, 2),
			want:   []IssuerViolation{{Kind: Reused, Resource: "r1", Token: 57, Earlier: 57, Index: 4, EarlierIndex: 3, Holder: 2, EarlierHolder: 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, CheckIssuer(tc.events))
		})
	}
}

func TestIssuerViolationString(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		v    IssuerViolation
		want string
	}{
		{"two workers", IssuerViolation{Kind: Reused, Resource: "r1", Token: 57, Earlier: 57, Index: 388, EarlierIndex: 120, Holder: 5, EarlierHolder: 3},
			"the issuer handed token 57 on resource r1 to two workers (worker 3 at index 120, worker 5 at index 388)"},
		{"same worker", IssuerViolation{Kind: Reused, Resource: "r1", Token: 57, Earlier: 57, Index: 388, EarlierIndex: 120, Holder: 3, EarlierHolder: 3},
			"the issuer handed token 57 on resource r1 to worker 3 twice (at index 120 and 388)"},
		{"not increasing", IssuerViolation{Kind: NotIncreasing, Resource: "r1", Token: 41, Earlier: 57, Index: 9, EarlierIndex: 4, Holder: 2, EarlierHolder: -1},
			"the issuer granted token 41 after token 57 on resource r1 (worker 2 at index 9, after an unnamed worker at index 4)"},
		{"after a restore", IssuerViolation{Kind: NotIncreasing, Resource: "r1", Token: 41, Earlier: 57, Index: 9, EarlierIndex: 4, Holder: 2, EarlierHolder: 1, Restore: "went back\x1b[2J"},
			`the issuer granted token 41 after token 57 on resource r1 (worker 2 at index 9, after worker 1 at index 4), after the issuer was restored from a snapshot: went back\x1b[2J`},
		{"escaped name", IssuerViolation{Kind: Reused, Resource: "r\x1b[2J", Token: 1, Earlier: 1, Index: 1, Holder: 1},
			`the issuer handed token 1 on resource r\x1b[2J to two workers (worker 0 at index 0, worker 1 at index 1)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.v.String())
		})
	}
}

// TestCheckJudgesTheIssuerApart: the issuer's violations go to
// Result.Issuer and leave the receiver's verdict alone.
func TestCheckJudgesTheIssuerApart(t *testing.T) {
	t.Parallel()
	events := leaseEvents{}.grant("r", 1, 0).grant("r", 1, 1)
	var clients []histories.Event
	for i, e := range []histories.Event{
		{Process: 0, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: 1, HasToken: true, Value: "a", HasValue: true},
		{Process: 0, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: 1, HasToken: true, Value: "a", HasValue: true, Outcome: histories.Accepted},
	} {
		e.Index, e.Time = int64(len(events)+i), int64(i)
		clients = append(clients, e)
	}
	h, err := histories.Pair(append(events, clients...))
	require.NoError(t, err)
	res, err := Check(context.Background(), h, Options{})
	require.NoError(t, err)
	assert.Equal(t, Held, res.Verdict)
	require.Len(t, res.Issuer, 1)
	assert.True(t, strings.HasPrefix(res.Issuer[0].String(), "the issuer handed token 1 on resource r to two workers"), res.Issuer[0].String())
}

// correctIssuer returns the lease events of an issuer that keeps its
// invariant: per resource, tokens from a counter that only grows (by
// random steps, as etcd's shared revisions do), grants interleaved across
// resources with renewals, expiries, releases and revocations.
func correctIssuer(r *rand.Rand) leaseEvents {
	resources := []string{"r0", "r1", "r2"}[:1+r.IntN(3)]
	next := make(map[string]uint64)
	var l leaseEvents
	for range r.IntN(60) {
		res := resources[r.IntN(len(resources))]
		if r.IntN(3) == 0 && next[res] > 0 {
			f := []string{histories.FRenew, histories.FExpire, histories.FRelease, histories.FRevoke}[r.IntN(4)]
			l = l.add(f, res, next[res], r.IntN(5))
			continue
		}
		next[res] += 1 + uint64(r.IntN(3))
		l = l.grant(res, next[res], r.IntN(5))
	}
	return l
}

// TestCheckIssuerProperty: a correct issuer's grants have no finding, and
// repeating any one of its grants later, to any worker, is found as
// exactly that reuse.
func TestCheckIssuerProperty(t *testing.T) {
	t.Parallel()
	for seed := range uint64(500) {
		r := rand.New(rand.NewPCG(seed, 1))
		events := correctIssuer(r)
		require.Empty(t, CheckIssuer(events), "seed %d", seed)
		var grants []int
		for i, e := range events {
			if e.F == histories.FAcquire {
				grants = append(grants, i)
			}
		}
		if len(grants) == 0 {
			continue
		}
		g := events[grants[r.IntN(len(grants))]]
		worker := r.IntN(5)
		again := events.grant(g.Resource, g.Token, worker)
		want := IssuerViolation{Kind: Reused, Resource: g.Resource, Token: g.Token, Earlier: g.Token,
			Index: int64(len(events)), EarlierIndex: g.Index, Holder: worker, EarlierHolder: g.Holder}
		require.Equal(t, []IssuerViolation{want}, CheckIssuer(again), "seed %d", seed)
	}
}
