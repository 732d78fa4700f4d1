package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// staleAfterNewer is the article's timeline: B's token 42 is accepted, then A
// resumes and submits its old result with 41. The resource must reject 41
// and keep B's result.
var staleAfterNewer = scenario{
	name:   "stale-after-newer",
	hazard: "the article: a stale write arrives after a newer token was accepted",
	run: func(ctx context.Context, s *script) Row {
		r := s.resource()
		s.handover(r, "worker A pauses; its lease expires")
		b := s.write(ctx, r, 42, "new-result")
		a := s.write(ctx, r, 41, "old-result")
		got := s.read(ctx, r)
		return Row{
			Expected: "42 accepted, 41 rejected, read \"new-result\"@42",
			Observed: fmt.Sprintf("42 %s, 41 %s, %s", b, a, got),
			Result:   verdict(b.is(histories.Accepted) && a.is(histories.Rejected) && got.holds("new-result", 42)),
		}
	},
}
