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
		s.handover(r, "worker A's lease expires while its write is on the way")
		a := s.write(ctx, r, 41, "old-result")
		b := s.write(ctx, r, 42, "new-result")
		got := s.read(ctx, r)
		out := Row{
			Expected: "41 accepted (allowed by fencing), then 42 accepted, read \"new-result\"@42",
			Observed: fmt.Sprintf("41 %s, 42 %s, %s", a, b, got),
			Result:   Info,
		}
		if s.o.RequireExclusive {
			out.Expected = fmt.Sprintf("41 rejected (%s: its lease was reassigned before it arrived), 42 accepted", s.o.word(RequireExclusive))
			out.Result = verdict(a.is(histories.Rejected))
		}
		if !b.is(histories.Accepted) || !got.holds("new-result", 42) {
			out.Result = Fail
		}
		return out
	},
}
