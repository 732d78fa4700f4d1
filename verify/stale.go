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
		toks, done, err := s.handover(ctx, r, "worker A pauses; its lease expires")
		if err != nil {
			return s.abort(err)
		}
		defer done()
		old, newer := toks[0], toks[1]
		b := s.write(ctx, r, newer, "new-result")
		a := s.write(ctx, r, old, "old-result")
		got := s.read(ctx, r)
		return Row{
			Expected: fmt.Sprintf("%d accepted, %d rejected, read \"new-result\"@%d", newer, old, newer),
			Observed: fmt.Sprintf("%d %s, %d %s, %s", newer, b, old, a, got),
			Result:   verdict(b.is(histories.Accepted) && a.is(histories.Rejected) && got.holds("new-result", newer)),
		}
	},
}
