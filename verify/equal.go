package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/models"
	"github.com/fencecheck/fencecheck/targets"
)

// equalTokenRepeat is the seed's fifth step: the owner of token 42 writes
// again with 42. Under strict the repeat must be rejected; under
// accept-equal it must be accepted. Either way the resource cannot tell a
// second write from a duplicate.
var equalTokenRepeat = scenario{
	name:   "equal-token-repeat",
	hazard: "a repeat of the current token (retry or duplicate)",
	run: func(ctx context.Context, s *script) Outcome {
		r := s.resource()
		first := s.write(ctx, r, 42, "first")
		again := s.write(ctx, r, 42, "repeat")
		got := s.read(ctx, r)
		want, final := targets.Rejected, "first"
		if s.o.Policy == models.AcceptEqual {
			want, final = targets.Accepted, "repeat"
		}
		return Outcome{
			Expected: fmt.Sprintf("42 accepted, repeat of 42 %s (%s policy), read %q@42", want, s.o.Policy, final),
			Observed: fmt.Sprintf("42 %s, repeat %s, %s", first, again, got),
			Status:   verdict(first.is(targets.Accepted) && again.is(want) && got.holds(final, 42)),
		}
	},
}
