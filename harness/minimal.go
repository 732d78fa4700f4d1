package harness

import (
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// shrinkFirst shrinks the first violation of an invalid history (the first
// cause, Result.First) to a minimal counterexample, within timeout; nil when the history held, when
// shrinking is switched off, or when the violation did not reproduce on
// its own resource in time. Each candidate's check keeps explain's default
// bound.
func shrinkFirst(h *histories.History, res explain.Result, opts check.Options, timeout time.Duration) (*explain.Shrunk, error) {
	if res.Verdict != check.Violated || timeout <= 0 || len(res.Violations) == 0 {
		return nil, nil
	}
	so := explain.DefaultShrinkOptions()
	so.Timeout = timeout
	s, ok, err := explain.Shrink(h, res.Violations[res.First()], opts, so)
	if err != nil {
		return nil, fmt.Errorf("shrink the first violation: %w", err)
	}
	if !ok {
		return nil, nil
	}
	return &s, nil
}
