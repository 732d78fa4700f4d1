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
		toks, done, err := s.owners(ctx, r, 42)
		if err != nil {
			return s.abort(err)
		}
		defer done()
		tok := toks[0]
		first := s.write(ctx, r, tok, "first")
		again := s.write(ctx, r, tok, "repeat")
		got := s.read(ctx, r)
		observed := fmt.Sprintf("%d %s, repeat %s, %s", tok, first, again, got)
		if s.o.Policy == model.AcceptEqual {
			return Row{
				Expected: fmt.Sprintf(`%d accepted, repeat of %d accepted or rejected (%s policy), read "repeat"@%d if accepted, "first"@%d if rejected`,
					tok, tok, s.o.Policy, tok, tok),
				Observed: observed,
				Result: verdict(first.is(histories.Accepted) &&
					(again.is(histories.Accepted) && got.holds("repeat", tok) || again.is(histories.Rejected) && got.holds("first", tok))),
			}
		}
		return Row{
			Expected: fmt.Sprintf("%d accepted, repeat of %d %s (%s policy), read %q@%d", tok, tok, histories.Rejected, s.o.Policy, "first", tok),
			Observed: observed,
			Result:   verdict(first.is(histories.Accepted) && again.is(histories.Rejected) && got.holds("first", tok)),
		}
	},
}
