package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// scope checks that tokens are compared per resource: a high token on one
// resource does not make a low token on another stale, and writing the
// other does not change the first. With a lease issuer, B's owner is
// granted first, so that its token is the lower one even when the issuer
// has one sequence for every resource (etcd's revisions).
var scope = scenario{
	name:   "scope",
	hazard: "tokens on one resource must not affect another",
	run: func(ctx context.Context, s *script) Row {
		a, b := s.resource(), s.resource()
		tb, doneB, err := s.owners(ctx, b, 1)
		if err != nil {
			return s.abort(err)
		}
		defer doneB()
		ta, doneA, err := s.owners(ctx, a, 100)
		if err != nil {
			return s.abort(err)
		}
		defer doneA()
		hi, lo := ta[0], tb[0]
		before := s.read(ctx, b)
		wa := s.write(ctx, a, hi, fmt.Sprintf("a-%d", hi))
		wb := s.write(ctx, b, lo, fmt.Sprintf("b-%d", lo))
		ra, rb := s.read(ctx, a), s.read(ctx, b)
		return Row{
			Expected: fmt.Sprintf("B never written; %d on A accepted, then %d on B accepted; A holds %d, B holds %d", hi, lo, hi, lo),
			Observed: fmt.Sprintf("B %s; A %d %s, B %d %s; A %s, B %s", before, hi, wa, lo, wb, ra, rb),
			Result: verdict(before.err == nil && !before.r.Found && wa.is(histories.Accepted) && wb.is(histories.Accepted) &&
				ra.holds(fmt.Sprintf("a-%d", hi), hi) && rb.holds(fmt.Sprintf("b-%d", lo), lo)),
		}
	},
}
