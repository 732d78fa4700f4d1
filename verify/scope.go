package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
)

// scope checks that tokens are compared per resource: a high token on one
// resource does not make a low token on another stale, and writing the
// other does not change the first.
var scope = scenario{
	name:   "scope",
	hazard: "tokens on one resource must not affect another",
	run: func(ctx context.Context, s *script) Row {
		a, b := s.resource(), s.resource()
		before := s.read(ctx, b)
		wa := s.write(ctx, a, 100, "a-100")
		wb := s.write(ctx, b, 1, "b-1")
		ra, rb := s.read(ctx, a), s.read(ctx, b)
		return Row{
			Expected: "B never written; 100 on A accepted, then 1 on B accepted; A holds 100, B holds 1",
			Observed: fmt.Sprintf("B %s; A 100 %s, B 1 %s; A %s, B %s", before, wa, wb, ra, rb),
			Result: verdict(before.err == nil && !before.r.Found && wa.is(histories.Accepted) && wb.is(histories.Accepted) &&
				ra.holds("a-100", 100) && rb.holds("b-1", 1)),
		}
	},
}
