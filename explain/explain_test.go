package explain

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// shrinkFirstCause checks ops, shrinks the first cause and returns both.
func shrinkFirstCause(t *testing.T, ops []histories.Operation, p model.Policy) (Violation, Shrunk) {
	t.Helper()
	opts := check.Options{Kind: model.KindFenced, Policy: p}
	res, err := CheckFast(ops, opts)
	require.NoError(t, err)
	require.Equal(t, check.Violated, res.Verdict)
	first := res.Violations[res.First()]
	s, ok, err := Shrink(context.Background(), ops, nil, first, opts, DefaultShrinkOptions())
	require.NoError(t, err)
	require.True(t, ok, "the first cause shrinks: %s", first.Summary)
	t.Logf("check: %s", first.Summary)
	t.Logf("minimal: %s", s.Violation.Summary)
	for _, st := range s.Violation.Steps {
		t.Logf("  #%d %s | %s", st.OpID, st.Event, st.Expected)
	}
	return first, s
}

func opIDs(s Shrunk) []int { return s.OpIDs }

// TestWrongRejectionKeepsTheWriteThatMadeItWrong: a rejection is wrong
// because the highest write sent before it answered has a lower token.
// Delta debugging used to drop that write and print "no write had been
// sent", which is false of the history; or to shrink to another
// rejection, one the dropped write had justified.
func TestWrongRejectionKeepsTheWriteThatMadeItWrong(t *testing.T) {
	t.Parallel()
	ops := new(hb).
		W(0, 3, "a", 0, 1, acc).
		W(1, 5, "b", 2, 3, acc).
		W(2, 4, "justified", 4, 5, rej). // 5 had been accepted: right
		W(3, 6, "wrong", 6, 7, rej).     // the highest sent by 7 is 5: wrong
		Ops
	first, s := shrinkFirstCause(t, ops, model.Strict)
	require.Equal(t, RuleWrongRejection, first.Rule)
	assert.Equal(t, RuleWrongRejection, s.Violation.Rule)
	assert.Equal(t, 3, culpritOf(s.Violation), "the same rejection, not the justified one")
	assert.Contains(t, opIDs(s), 1, "the highest write that could have been accepted before the rejection answered")
	assert.Contains(t, s.Violation.Summary, "the highest token that may have taken effect by then was 5")
	assert.NotContains(t, s.Violation.Summary, "no write")
}

// TestReadOfAFailedWritesValue: a read returned the value of a write
// recorded as failed. The explanation says the write failed (not that no
// write wrote the value), and the minimal counterexample keeps the failed
// write to show it, whichever checker judged.
func TestReadOfAFailedWritesValue(t *testing.T) {
	t.Parallel()
	build := func(b *hb) *hb {
		b.W(0, 1, "a", 0, 1, acc)
		b.Add(histories.Operation{Process: 1, F: histories.FWrite, Token: 2, HasToken: true, Value: "b", HasValue: true,
			Status: histories.StatusFailed, Call: 2, Return: 3})
		return b.R(2, "b", 2, 4, 5)
	}
	// Many reads of other values first, so that the shrinker makes more
	// lookups than it once answered by scanning.
	b := new(hb)
	for i := range 40 {
		b.W(9, uint64(i+1), "x"+strings.Repeat("x", i), int64(10*i)-1000, int64(10*i)-995, acc)
		b.R(9, "x"+strings.Repeat("x", i), uint64(i+1), int64(10*i)-994, int64(10*i)-990)
	}
	for _, tc := range []struct {
		name string
		ops  []histories.Operation
	}{
		{"alone", build(new(hb)).Ops},
		{"after many reads", shiftTokens(build(b).Ops)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first, s := shrinkFirstCause(t, tc.ops, model.Strict)
			for _, v := range []Violation{first, s.Violation} {
				assert.Equal(t, RuleReadOrigin, v.Rule)
				assert.Contains(t, v.Summary, "the value of a write that failed")
				assert.NotContains(t, v.Summary, "no write")
			}
			var failed bool
			for _, op := range s.Ops {
				failed = failed || op.Status == histories.StatusFailed && op.Value == "b"
			}
			assert.True(t, failed, "the minimal counterexample shows the failed write")
		})
	}
}

// shiftTokens makes the tokens of the last three operations (the case's
// own) follow the earlier ones, so that the earlier writes do not bar
// them.
func shiftTokens(ops []histories.Operation) []histories.Operation {
	for i := len(ops) - 3; i < len(ops); i++ {
		ops[i].Token += 100
	}
	return ops
}

// TestAcceptEqualAdviceOnlyWhenItHolds: a repeat of the current token
// accepted under strict is advised to be judged under accept-equal only
// when the resource's history holds under it; with a stale write accepted
// as well it does not, and the advice would be false. The text names the
// policy, not a command-line flag.
func TestAcceptEqualAdviceOnlyWhenItHolds(t *testing.T) {
	t.Parallel()
	repeats := func() *hb { return new(hb).W(0, 7, "a", 0, 1, acc).W(0, 7, "b", 2, 3, acc) }
	cases := []struct {
		name   string
		ops    []histories.Operation
		advice bool
	}{
		{"repeat only", repeats().R(1, "b", 7, 4, 5).Ops, true},
		{"repeat and a stale write", repeats().W(2, 6, "stale", 4, 5, acc).R(1, "stale", 6, 6, 7).Ops, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ae, err := CheckFast(tc.ops, check.Options{Policy: model.AcceptEqual})
			require.NoError(t, err)
			require.Equal(t, tc.advice, ae.Verdict == check.Held, "the case's premise")
			fast, err := CheckFast(tc.ops, check.Options{Policy: model.Strict})
			require.NoError(t, err)
			_, s := shrinkFirstCause(t, tc.ops, model.Strict)
			for _, v := range []Violation{fast.Violations[0], CheckPorcupine(tc.ops, check.Options{Policy: model.Strict}).Violations[0], s.Violation} {
				require.Equal(t, RuleEqualAccepted, v.Rule, v.Summary)
				assert.Equal(t, tc.advice, strings.Contains(v.Summary, "accept-equal policy"), v.Summary)
				assert.NotContains(t, v.Summary, "--policy")
				var claimed bool
				for _, c := range v.Claims {
					claimed = claimed || c.Kind == ClaimHoldsUnder
				}
				assert.Equal(t, tc.advice, claimed, "the advice is a claim")
			}
		})
	}
}

// TestTheStateBeforeTheRunIsNoClientsWrite: the state a resource held
// before the run is worded as such, never as a process's write.
func TestTheStateBeforeTheRunIsNoClientsWrite(t *testing.T) {
	t.Parallel()
	b := new(hb)
	b.Add(histories.Operation{Process: -1, F: histories.FWrite, Token: 5, HasToken: true, Value: "before", HasValue: true,
		Status: histories.StatusAccepted, Call: histories.InitialTime, Return: histories.InitialTime, Initial: true})
	b.W(0, 3, "stale", 0, 1, acc)
	first, s := shrinkFirstCause(t, b.Ops, model.Strict)
	for _, v := range []Violation{first, s.Violation} {
		assert.Equal(t, RuleStaleAccepted, v.Rule)
		assert.Contains(t, v.Summary, "the state before the run already had token 5")
		for _, st := range v.Steps {
			if st.OpID == 0 {
				assert.Equal(t, `state before the run: token 5 value "before"`, st.Event)
				assert.Contains(t, st.Expected, "the state before the run")
			}
		}
	}
}
