package harness

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/judge"
)

// TestCrashGate: a run that crashed the receiver, or had a fault to, and
// has no stale write the restarted receiver answered is inconclusive,
// and its gaps and its JUnit case say so: a gate reading JUnit sees the
// same verdict as one reading the exit code.
func TestCrashGate(t *testing.T) {
	t.Parallel()
	ev := func(i int64, e histories.Event) histories.Event { e.Index, e.Time = i, i*10; return e }
	write := func(i int64, p int, tok uint64, out histories.Outcome) []histories.Event {
		return []histories.Event{
			ev(i, histories.Event{Process: p, Type: histories.TypeInvoke, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Value: "v", HasValue: true}),
			ev(i+1, histories.Event{Process: p, Type: histories.TypeOK, F: histories.FWrite, Resource: "r", Token: tok, HasToken: true, Outcome: out}),
		}
	}
	crash := ev(3, histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FCrash, Fault: "kill"})
	restarted := ev(4, histories.Event{Process: -1, Actor: histories.ActorNemesis, F: histories.FEnd, Fault: "kill"})
	read := []histories.Event{
		ev(20, histories.Event{Process: 3, Type: histories.TypeInvoke, F: histories.FRead, Resource: "r"}),
		ev(21, histories.Event{Process: 3, Type: histories.TypeOK, F: histories.FRead, Resource: "r", Token: 42, HasToken: true, Value: "v", HasValue: true}),
	}
	cases := []struct {
		name   string
		events []histories.Event
		faults []string
		gate   judge.Gate // judge.GateCrash: inconclusive for want of one
		junit  []bool     // whether the crash case is there, and errs
	}{
		{"a stale write answered after the crash", slices.Concat(write(1, 1, 42, histories.Accepted), []histories.Event{crash, restarted}, write(5, 0, 41, histories.Rejected), read),
			[]string{"kill"}, judge.GateCheck, []bool{false}},
		{"the stale write sent before the crash", slices.Concat(write(1, 1, 42, histories.Accepted), write(5, 0, 41, histories.Rejected), []histories.Event{ev(9, crash), ev(10, restarted)}, read),
			[]string{"kill"}, judge.GateCrash, []bool{true}},
		{"the crash fault never acted", slices.Concat(write(1, 1, 42, histories.Accepted), write(5, 0, 41, histories.Rejected), read),
			[]string{"kill"}, judge.GateCrash, []bool{true}},
		{"no crash fault", slices.Concat(write(1, 1, 42, histories.Accepted), write(5, 0, 41, histories.Rejected), read),
			nil, judge.GateCheck, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, err := histories.Pair(tc.events)
			require.NoError(t, err)
			o := judge.DefaultOptions()
			o.CrashFaults = tc.faults
			rep, err := judge.Judge(context.Background(), h, o)
			require.NoError(t, err)
			res := Result{Report: rep, Config: RunConfig{judged: o}}
			assert.Equal(t, tc.gate, res.Gate, res.Reason)
			var gaps []string
			for _, g := range res.NotCovered() {
				gaps = append(gaps, g.Text(ConfigTerms{}))
			}
			if tc.gate == judge.GateCrash {
				assert.Equal(t, judge.Inconclusive, res.Verdict)
				assert.Contains(t, res.Reason, "no stale write reached the receiver after it was crashed and started again")
				assert.Contains(t, gaps, res.Reason)
			}
			var junit []bool
			for _, c := range res.JUnit().Cases {
				if c.Name == "a stale write answered after a crash of the receiver" {
					junit = append(junit, c.Error != nil)
				}
			}
			assert.Equal(t, tc.junit, junit, "the JUnit case errs with the gate")
		})
	}
}
