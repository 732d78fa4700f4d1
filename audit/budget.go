package audit

import "time"

// shares are how the steps share the audit's budget: the end of each
// step's window, as a fraction of the budget from the audit's start.
// Steps 1 and 6 take no time. A step that ends early leaves its time to
// the ones after it, and a step that overruns takes from them: a step
// runs until its window's end, whatever the earlier steps spent.
var shares = map[int]float64{
	StepSequence:     0.10, // the issuer's battery: 10 %
	StepEnforcement:  0.30, // the receiver's battery: 20 %
	StepPausedWorker: 0.85, // the paused-worker test: 55 %
	StepFixes:        1.00, // the tempting fixes: 15 %
}

// budget is the audit's time, shared among its steps.
type budget struct {
	start time.Time
	total time.Duration // 0: no bound
	now   func() time.Time
}

func newBudget(total time.Duration, now func() time.Time) *budget {
	return &budget{start: now(), total: total, now: now}
}

// window is the time step may take from now: until its window's end,
// at least nothing; ok is false when the audit has no budget.
func (b *budget) window(step int) (left time.Duration, ok bool) {
	if b.total <= 0 {
		return 0, false
	}
	end := b.start.Add(b.end(shares[step]))
	return max(end.Sub(b.now()), 0), true
}

// share is step's share of the budget, for the report: from the end of
// the window before it to the end of its own (nothing for the steps that
// take no time), so that the shares add up to the budget.
func (b *budget) share(step int) time.Duration {
	if _, timed := shares[step]; !timed || b.total <= 0 {
		return 0
	}
	prev := 0.0
	for s := StepIssuer; s < step; s++ {
		prev = max(prev, shares[s])
	}
	return b.end(shares[step]) - b.end(prev)
}

// end is a window's end, as a duration from the audit's start.
func (b *budget) end(share float64) time.Duration {
	return time.Duration(share * float64(b.total))
}
