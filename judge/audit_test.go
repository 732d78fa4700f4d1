package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDecideAudit: an adopter relies on an audit that passes only when
// every step that judges held on evidence, that names the step that
// found a violation, and that is no pass when a step was cut by the
// budget or could not test the user's own issuer.
func TestDecideAudit(t *testing.T) {
	t.Parallel()
	held := func(n int, name string) AuditStep {
		return AuditStep{Number: n, Name: name, Verdict: Held, Reason: "fine"}
	}
	info := func(n int, name string) AuditStep { return AuditStep{Number: n, Name: name} }
	steps := func(change func([]AuditStep)) []AuditStep {
		s := []AuditStep{info(1, "the issuer"), held(2, "its sequence survives the failures"), held(3, "the enforcement point"),
			held(4, "the paused-worker test"), info(5, "the tempting fixes"), info(6, "what this does not cover")}
		if change != nil {
			change(s)
		}
		return s
	}
	cases := []struct {
		name    string
		steps   []AuditStep
		verdict Verdict
		reason  string
	}{
		{"every step held", steps(nil), Held, "every step held on evidence"},
		{"the paused-worker test violated", steps(func(s []AuditStep) { s[3].Verdict, s[3].Reason = Violated, "seed 3: stale write accepted" }), Violated,
			"a violation in step 4 (the paused-worker test): seed 3: stale write accepted"},
		{"two steps violated", steps(func(s []AuditStep) {
			s[2].Verdict, s[2].Reason = Violated, "check-then-set-race failed"
			s[3].Verdict, s[3].Reason = Violated, "seed 1: stale write accepted"
		}), Violated, "a violation in step 3 (the enforcement point): check-then-set-race failed; and in step 4 (the paused-worker test): seed 1: stale write accepted"},
		{"a violation beats a cut", steps(func(s []AuditStep) {
			s[1].Verdict, s[1].Reason = Violated, "token 7 granted twice"
			s[3].Cut = "12 of 40 seeds"
		}), Violated, "a violation in step 2 (its sequence survives the failures): token 7 granted twice"},
		{"cut by the budget", steps(func(s []AuditStep) { s[3].Verdict, s[3].Cut = Inconclusive, "ran 12 of the 40 seeds it needed" }), Inconclusive,
			"no violation, but step 4 (the paused-worker test) was cut by the budget: ran 12 of the 40 seeds it needed"},
		{"the issuer not tested", steps(func(s []AuditStep) { s[0].Untested = "fencecheck's own issuer gave the tokens" }), Inconclusive,
			"no violation, but step 1 (the issuer): fencecheck's own issuer gave the tokens"},
		{"a battery inconclusive", steps(func(s []AuditStep) { s[2].Verdict, s[2].Reason = Inconclusive, "the log was not read" }), Inconclusive,
			"no violation, but step 3 (the enforcement point) was inconclusive: the log was not read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v, g, r := DecideAudit(tc.steps)
			assert.Equal(t, tc.verdict, v)
			assert.Equal(t, GateAudit, g)
			assert.Equal(t, tc.reason, r)
		})
	}
}
