package harness

import (
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/models"
)

// shrinkFirst shrinks the first violation of an invalid history (the first
// cause, Result.First) to a minimal counterexample, within timeout; nil when the history held, when
// shrinking is switched off, or when the violation did not reproduce on
// its own resource in time.
func shrinkFirst(h *histories.History, check models.Result, opts models.Options, timeout time.Duration) *models.Shrunk {
	if check.Verdict != models.Violated || timeout <= 0 || len(check.Violations) == 0 {
		return nil
	}
	s, ok := models.Shrink(h, check.Violations[check.First()], opts, models.ShrinkOptions{Timeout: timeout})
	if !ok {
		return nil
	}
	return &s
}
