package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// shrinkFirst shrinks the violation at position first of an invalid
// history's (Report.shrinkTarget) to a minimal counterexample, within
// timeout and ctx; nil when the history held, when shrinking is off
// (timeout 0), or when the violation did not reproduce on its own
// resource in time. h needs only the violating resources' operations:
// shrinking judges one resource at a time. Each candidate's check keeps
// explain's default bound.
func shrinkFirst(ctx context.Context, h *histories.History, res explain.Result, first int, opts check.Options, timeout time.Duration) (*explain.Shrunk, error) {
	if res.Verdict != check.Violated || timeout <= 0 || first < 0 {
		return nil, nil
	}
	so := explain.DefaultShrinkOptions()
	so.Timeout = timeout
	s, ok, err := explain.Shrink(ctx, h, res.Violations[first], opts, so)
	if err != nil {
		return nil, fmt.Errorf("shrink the first violation: %w", err)
	}
	if !ok {
		return nil, nil
	}
	return &s, nil
}

// shrinkTarget is the violation a person should see as the minimal
// counterexample: the first example of a root cause when there is one
// (scope, restart: the other findings may follow from it), else the first
// cause, the violation whose evidence was complete earliest.
func (r *Report) shrinkTarget() int {
	if f := r.rootCause(); f != nil {
		return f.example
	}
	return r.Check.First()
}
