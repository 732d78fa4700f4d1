package harness

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/judge"
)

// TestSummaryTellsEachViolationOnceFirstCauseFirst is the README's
// check-then-set run: its summary names the first cause in the verdict,
// tells it as its minimal counterexample, and every other violation once.
func TestSummaryTellsEachViolationOnceFirstCauseFirst(t *testing.T) {
	t.Parallel()
	res := defaultRun(t, "check-then-set", 7)
	require.Equal(t, judge.Violated, res.Verdict)
	require.NotEmpty(t, res.Check.Violations)
	first := res.Check.Violations[res.Check.First()]
	for _, v := range res.Check.Violations {
		assert.LessOrEqual(t, first.At, v.At, "the first cause is the earliest evidence")
	}
	require.NotNil(t, res.Minimal)
	assert.Equal(t, first.Resource, res.Minimal.Resource, "the minimal counterexample shrinks the first cause")
	sum := res.Summary()
	t.Log(sum)
	assert.Contains(t, res.Reason, fmt.Sprintf("first on %s at %s: %s", first.Resource, time.Duration(first.At), first.Summary))
	assert.Equal(t, 1, strings.Count(sum, "minimal counterexample:"))
	for _, v := range res.Check.Violations {
		assert.Equal(t, 1, strings.Count(sum, fmt.Sprintf("resource %q:", v.Resource)), "resource %s told once", v.Resource)
	}
	minimal := strings.Index(sum, "minimal counterexample:")
	for _, v := range res.Check.Violations {
		assert.Less(t, minimal, strings.Index(sum, fmt.Sprintf("resource %q:", v.Resource)), "the first cause comes first")
	}
}
