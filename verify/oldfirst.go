package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// oldTokenFirst is the article's critical limit: A's write with 41 is still
// travelling when its lease is reassigned to B (token 42), and reaches the
// resource first. A resource that remembers only its highest token has
// not seen 42 yet and accepts 41: fencing allows it. Only the stronger
// requirement (Options.RequireExclusive) forbids it, and no highest-token
// receiver can meet that; the row is informational otherwise. 42 must
// still be accepted afterwards.
var oldTokenFirst = scenario{
	name:   "old-token-first",
	hazard: "an old token reaches the resource before the newer one (the documented limit)",
	run: func(ctx context.Context, s *script) Row {
		r := s.resource()
		toks, done, err := s.handover(ctx, r, "worker A's lease expires while its write is on the way")
		if err != nil {
			return s.abort(err)
		}
		defer done()
		old, newer := toks[0], toks[1]
		a := s.write(ctx, r, old, "old-result")
		b := s.write(ctx, r, newer, "new-result")
		got := s.read(ctx, r)
		out := Row{
			Expected: fmt.Sprintf("%d accepted (allowed by fencing), then %d accepted, read \"new-result\"@%d", old, newer, newer),
			Observed: fmt.Sprintf("%d %s, %d %s, %s", old, a, newer, b, got),
			Result:   Info,
		}
		if s.o.RequireExclusive {
			out.Expected = fmt.Sprintf("%d rejected (%s: its lease was reassigned before it arrived), %d accepted", old, s.o.word(RequireExclusive), newer)
			out.Result = verdict(a.is(histories.Rejected))
		}
		if !b.is(histories.Accepted) || !got.holds("new-result", newer) {
			out.Result = Fail
		}
		return out
	},
}
