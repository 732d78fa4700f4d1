package harness

import (
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// shrinkFirst shrinks the first violation of an invalid history (the first
// cause, Result.First) to a minimal counterexample, within timeout; nil when the history held, when
// shrinking is switched off, or when the violation did not reproduce on
// its own resource in time.
func shrinkFirst(h *histories.History, res explain.Result, opts check.Options, timeout time.Duration) *explain.Shrunk {
	if res.Verdict != check.Violated || timeout <= 0 || len(res.Violations) == 0 {
		return nil
	}
	s, ok := explain.Shrink(h, res.Violations[res.First()], opts, explain.ShrinkOptions{Timeout: timeout})
	if !ok {
		return nil
	}
	return &s
}
