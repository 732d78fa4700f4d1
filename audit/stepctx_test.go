package audit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fencecheck/fencecheck/judge"
)

// TestABatteryTheBudgetEndedSaysItWasCut: a battery that returned after
// its step's window of the budget ended judged nothing from the row it
// was in (verify makes that row not judged): the step keeps the rows it
// played as evidence and says the budget cut it, so the audit is
// inconclusive and names the cut. A violation the battery found before
// the end stands, and a battery that finished in time is not cut.
func TestABatteryTheBudgetEndedSaysItWasCut(t *testing.T) {
	t.Parallel()
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		verdict judge.Verdict
		cut     bool
	}{
		{"ended, nothing failed", ended, judge.Inconclusive, true},
		{"ended after a failure", ended, judge.Violated, false},
		{"finished in time", context.Background(), judge.Held, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStep(StepEnforcement)
			s.Budget = time.Minute
			s.judged(tc.verdict, "the battery's reason")
			s.Evidence = []string{"7 passed"}
			s.cutDuring(tc.ctx, time.Now(), "the receiver's battery did not finish")
			assert.Equal(t, []string{"7 passed"}, s.Evidence, "the rows played stay the evidence")
			assert.Equal(t, string(tc.verdict), s.Result)
			v, _, reason := judge.DecideAudit([]judge.AuditStep{s.forJudge()})
			if !tc.cut {
				assert.Empty(t, s.Cut)
				assert.Equal(t, tc.verdict, v)
				return
			}
			assert.Contains(t, s.Cut, "(its share of the budget: 1m0s): the receiver's battery did not finish")
			assert.Equal(t, judge.Inconclusive, v)
			assert.Contains(t, reason, "step 3 (the enforcement point) was cut by the budget: the budget ended it after")
		})
	}
}
