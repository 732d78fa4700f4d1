package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// staleAfterNewer is the seed's timeline: B's token 42 is accepted, then A
// resumes and submits its old result with 41. The resource must reject 41
// and keep B's result.
var staleAfterNewer = scenario{
	name:   "stale-after-newer",
	hazard: "the seed: a stale write arrives after a newer token was accepted",
	run: func(ctx context.Context, s *script) Outcome {
		r := s.resource()
		s.lease(histories.FAcquire, r, 41, 0, "worker A receives token 41")
		s.lease(histories.FExpire, r, 41, 0, "worker A pauses; its lease expires")
		s.lease(histories.FAcquire, r, 42, 1, "worker B receives token 42")
		b := s.write(ctx, r, 42, "new-result")
		a := s.write(ctx, r, 41, "old-result")
		got := s.read(ctx, r)
		return Outcome{
			Expected: "42 accepted, 41 rejected, read \"new-result\"@42",
			Observed: fmt.Sprintf("42 %s, 41 %s, %s", b, a, got),
			Status:   verdict(b.is(targets.Accepted) && a.is(targets.Rejected) && got.holds("new-result", 42)),
		}
	},
}
