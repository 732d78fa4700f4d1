package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// shrinkFirst shrinks the first cause of an invalid history (the
// violation whose evidence was complete earliest, explain.Result.First)
// to a minimal counterexample, within timeout and ctx; nil when the
// history held, when shrinking is off (timeout 0), or when the violation
// did not reproduce on its own resource in time. ops need only be the
// violating resources' operations, and others the history's other
// events: shrinking judges one resource at a time. Each candidate's check
// keeps explain's default bound.
func shrinkFirst(ctx context.Context, ops []histories.Operation, others []histories.Event, res explain.Result, opts check.Options, timeout time.Duration) (*explain.Shrunk, error) {
	if res.Verdict != check.Violated || timeout <= 0 || len(res.Violations) == 0 {
		return nil, nil
	}
	so := explain.DefaultShrinkOptions()
	so.Timeout = timeout
	s, ok, err := explain.Shrink(ctx, ops, others, res.Violations[res.First()], opts, so)
	if err != nil {
		return nil, fmt.Errorf("shrink the first violation: %w", err)
	}
	if !ok {
		return nil, nil
	}
	return &s, nil
}
