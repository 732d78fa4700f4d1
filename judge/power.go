package judge

import (
	"fmt"
	"math"
)

// BoundConfidence is the confidence of the stale-acceptance bound a pass
// states (Power.StaleBound).
const BoundConfidence = 0.95

// Power says what a judged history could have caught: the hazards it
// exercised are its Coverage; Power words the bound they put on a
// receiver that is broken by chance rather than every time.
type Power struct {
	// StaleTested is how many stale writes reached the receiver and were
	// answered (accepted or rejected): the trials of the protected case.
	// Stale writes of unknown outcome prove nothing either way.
	StaleTested int `json:"stale_tested"`
	// StaleBound is the largest rate of stale writes accepted that a
	// receiver could have and still pass this history with probability
	// 1-BoundConfidence: with n stale writes all rejected, 1-(1-0.95)^(1/n),
	// the exact binomial bound for no failure in n trials (about 3/n for
	// large n, the rule of three). A receiver that accepts stale writes at
	// this rate or more would have failed with probability 0.95 or more.
	// 1 when no stale write was tested: nothing is ruled out. It assumes
	// each stale write is accepted independently; a receiver that accepts
	// only under a condition the run never made is not bounded by it.
	StaleBound float64 `json:"stale_acceptance_bound"`
}

// powerOf is the power of a history whose coverage is c.
func powerOf(c Coverage) Power {
	n := c.StaleRejected + c.StaleAccepted
	return Power{StaleTested: n, StaleBound: staleBound(n, BoundConfidence)}
}

// staleBound is the rate p at which n independent trials all pass with
// probability 1-confidence: (1-p)^n = 1-confidence. Expm1 keeps it exact
// for large n, where it tends to -ln(1-confidence)/n.
func staleBound(n int, confidence float64) float64 {
	if n <= 0 {
		return 1
	}
	return -math.Expm1(math.Log(1-confidence) / float64(n))
}

// Sentence words the bound for a gate owner: "a receiver that accepted 1
// stale write in 7 would have failed this run with 95 % probability (20
// stale writes, all rejected)"; "" when nothing was tested.
func (p Power) Sentence() string {
	if p.StaleTested == 0 {
		return ""
	}
	// The largest k with 1/k >= StaleBound: a receiver that accepts one
	// stale write in k accepts at least at the bound's rate.
	k := int(math.Floor(1/p.StaleBound + 1e-9))
	rate := fmt.Sprintf("1 stale write in %d", k)
	if k <= 1 {
		rate = "every stale write"
	}
	return fmt.Sprintf("a receiver that accepted %s would have failed this run with %.0f %% probability (%d stale writes tested, all rejected; the rate ruled out at %.0f %% confidence is %s)",
		rate, 100*BoundConfidence, p.StaleTested, 100*BoundConfidence, percent(p.StaleBound))
}

// percent words a rate as a percentage with three significant digits.
func percent(p float64) string {
	return fmt.Sprintf("%.3g %%", 100*p)
}
