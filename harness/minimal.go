package harness

import (
	"fmt"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/models"
)

// shrinkFirst shrinks the first violation of an invalid history to a
// minimal counterexample, within timeout; nil when the history held, when
// shrinking is switched off, or when the violation did not reproduce on
// its own resource in time.
func shrinkFirst(h *histories.History, check models.Result, opts models.Options, timeout time.Duration) *models.Shrunk {
	if check.Verdict != models.Violated || timeout < 0 || len(check.Violations) == 0 {
		return nil
	}
	s, ok := models.Shrink(h, check.Violations[0], opts, models.ShrinkOptions{Timeout: timeout})
	if !ok {
		return nil
	}
	return &s
}

// writeMinimal writes the minimal counterexample for summary.txt and the
// command line: a heading and the timeline table.
func writeMinimal(b *strings.Builder, s *models.Shrunk) {
	if s == nil {
		return
	}
	done := "1-minimal"
	if !s.Minimal {
		done = "the time bound stopped the search early"
	}
	fmt.Fprintf(b, "\nminimal counterexample: %d of %d operations on %s (%s, %d checks, %v)\n",
		len(s.Ops), s.From, s.Resource, done, s.Checks, s.Elapsed.Round(time.Millisecond))
	_ = models.WriteViolation(b, s.Violation)
}
