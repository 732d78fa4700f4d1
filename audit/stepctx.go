package audit

import (
	"context"
	"fmt"
	"time"

	"github.com/fencecheck/fencecheck/judge"
)

// stepContext is the context of a step: its window of the budget. cut
// says the budget had no time left for the step at all, which s then
// says.
func stepContext(ctx context.Context, b *budget, s *Step) (context.Context, context.CancelFunc, bool) {
	s.Budget = b.share(s.Number)
	left, bounded := b.window(s.Number)
	if !bounded {
		ctx, cancel := context.WithCancel(ctx)
		return ctx, cancel, false
	}
	if left <= 0 {
		s.Result, s.Cut = "cut", "the budget had no time left for it"
		s.Reason = s.Cut
		return ctx, func() {}, true
	}
	ctx, cancel := context.WithTimeout(ctx, left)
	return ctx, cancel, false
}

// cutAfter marks s, which started at start, as cut by the budget: what
// it had reached says why.
func (s *Step) cutAfter(start time.Time, reached string) Step {
	s.Result = "cut"
	s.Cut = s.endedAfter(start, reached)
	s.Reason = s.Cut
	return *s
}

// cutDuring marks s, which started at start and whose battery returned
// its rows, as cut by the budget when ctx (its window) ended before the
// battery did: the rows it played stay its evidence, the row the end
// fell in says it was not judged, and the battery's verdict stands (a
// violation found before the end is one). reached names what did not
// finish.
func (s *Step) cutDuring(ctx context.Context, start time.Time, reached string) {
	if ctx.Err() == nil || s.verdict == judge.Violated {
		return
	}
	s.Cut = s.endedAfter(start, reached)
}

// endedAfter words the budget's end of s, which started at start.
func (s *Step) endedAfter(start time.Time, reached string) string {
	return fmt.Sprintf("the budget ended it after %s (its share of the budget: %s): %s", time.Since(start).Round(time.Second), s.Budget.Round(time.Second), reached)
}
