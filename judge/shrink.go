package judge

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// shrinkFirst shrinks the violation at position first of an invalid
// history's (Report.shrinkTarget) to a minimal counterexample, within
// o.ShrinkTimeout and ctx; nil when the history held, when shrinking is
// off (timeout 0), or when the violation did not reproduce on its own
// resource in time. ops need only be the violating
// resources' operations, and others the history's other events:
// shrinking judges one resource at a time. Each candidate's check keeps
// explain's default bound.
func shrinkFirst(ctx context.Context, ops []histories.Operation, others []histories.Event, res explain.Result, first int, o *Options) (*explain.Shrunk, error) {
	if res.Verdict != check.Violated || o.ShrinkTimeout <= 0 || first < 0 {
		return nil, nil
	}
	so := explain.DefaultShrinkOptions()
	so.Timeout = o.ShrinkTimeout
	s, ok, err := explain.Shrink(ctx, ops, others, res.Violations[first], o.Check, so)
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
