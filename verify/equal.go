package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// equalTokenRepeat is the article's fifth step: the owner of token 42 writes
// again with 42. Under strict the repeat must be rejected. Under
// accept-equal either answer is legal (a strict receiver is correct there
// too), so the scenario checks only that the read agrees with the answer:
// the repeat's value if it was accepted, the first value if it was
// rejected. Either way the resource cannot tell a second write from a
// duplicate.
var equalTokenRepeat = scenario{
	name:   "equal-token-repeat",
	hazard: "a repeat of the current token (retry or duplicate)",
	run: func(ctx context.Context, s *script) Row {
		r := s.resource()
		first := s.write(ctx, r, 42, "first")
		again := s.write(ctx, r, 42, "repeat")
		got := s.read(ctx, r)
		observed := fmt.Sprintf("42 %s, repeat %s, %s", first, again, got)
		if s.o.Policy == model.AcceptEqual {
			return Row{
				Expected: fmt.Sprintf(`42 accepted, repeat of 42 accepted or rejected (%s policy), read "repeat"@42 if accepted, "first"@42 if rejected`, s.o.Policy),
				Observed: observed,
				Result: verdict(first.is(histories.Accepted) &&
					(again.is(histories.Accepted) && got.holds("repeat", 42) || again.is(histories.Rejected) && got.holds("first", 42))),
			}
		}
		return Row{
			Expected: fmt.Sprintf("42 accepted, repeat of 42 %s (%s policy), read %q@42", histories.Rejected, s.o.Policy, "first"),
			Observed: observed,
			Result:   verdict(first.is(histories.Accepted) && again.is(histories.Rejected) && got.holds("first", 42)),
		}
	},
}
