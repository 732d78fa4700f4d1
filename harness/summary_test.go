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

// TestSummaryTellsEachKindOnceFirstCauseFirst is the README's
// check-then-set run: its summary names the first cause in the verdict,
// names every kind of finding once, the first cause's first, tells the
// first cause as its minimal counterexample and the first example of
// every other kind in full, and names the other resources of a kind
// rather than telling each again.
func TestSummaryTellsEachKindOnceFirstCauseFirst(t *testing.T) {
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
	require.NotEmpty(t, res.Findings)
	assert.Equal(t, first.Resource, res.Findings[0].Resources[0], "the first cause's kind is the first finding")
	for _, f := range res.Findings {
		assert.Equal(t, 1, strings.Count(sum, " "+f.Kind+" ("), "kind %s named once among the findings", f.Kind)
		ex := res.Check.Violations[f.Example()]
		assert.Equal(t, 1, strings.Count(sum, fmt.Sprintf("resource %q:", ex.Resource)), "the first example of %s told once", f.Kind)
		for _, other := range f.Resources[1:] {
			assert.Contains(t, sum, other, "a further resource of %s is named", f.Kind)
		}
	}
	for _, v := range res.Check.Violations {
		assert.LessOrEqual(t, strings.Count(sum, fmt.Sprintf("resource %q:", v.Resource)), 1, "resource %s told in full at most once", v.Resource)
	}
	minimal := strings.Index(sum, "minimal counterexample:")
	for _, v := range res.Check.Violations {
		if at := strings.Index(sum, fmt.Sprintf("resource %q:", v.Resource)); at >= 0 {
			assert.Less(t, minimal, at, "the first cause comes first")
		}
	}
}
