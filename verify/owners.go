package verify

import (
	"context"
	"fmt"

	"github.com/fencecheck/fencecheck/lease"
)

// owners gives resource one owner after another, as a scheduler
// reassigns a job, and returns their tokens, oldest owner first, and the
// function that ends the newest owner's lease once the scenario is done.
//
// Without a lease service (Options.Leases) the tokens are the scripted
// ones and nothing is recorded: the scenario's own timeline says who held
// what. With one, the tokens are the issuer's: owner i is worker i, and
// each owner but the newest loses its lease as the next is granted (the
// issuer records the grants and ends as lease events), so the newest
// holds its lease while the scenario writes. An issuer whose tokens do
// not increase is an error of the battery, not a failure of the receiver:
// it says so and names verify-issuer's battery for it.
func (s *script) owners(ctx context.Context, resource string, scripted ...uint64) ([]uint64, func(), error) {
	svc := s.o.Leases
	if svc == nil {
		return scripted, func() {}, nil
	}
	tokens := make([]uint64, len(scripted))
	var held lease.Lease
	for i := range scripted {
		if i > 0 {
			svc.ExpireToken(resource, held.Token) // the next owner is waiting
		}
		l, err := svc.Acquire(ctx, resource, i)
		if err != nil {
			return nil, nil, fmt.Errorf("lease issuer: %w", err)
		}
		if i > 0 && l.Token <= held.Token {
			svc.Release(l)
			return nil, nil, fmt.Errorf("the lease issuer granted token %d on %s after token %d: its tokens do not increase (fencecheck verify-issuer tests the issuer)",
				l.Token, resource, held.Token)
		}
		held, tokens[i] = l, l.Token
	}
	return tokens, func() { svc.Release(held) }, nil
}

// abort ends the scenario with err, which Run returns: the battery cannot
// go on without its tokens.
func (s *script) abort(err error) Row {
	s.err = fmt.Errorf("scenario %s: %w", s.scenario, err)
	return Row{Result: Fail, Observed: "aborted: " + short(err)}
}
