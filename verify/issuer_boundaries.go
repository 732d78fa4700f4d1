package verify

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/fencecheck/fencecheck/lease"
)

// boundary is a token value where a sloppy issuer or receiver gets the
// order wrong, and the word for it.
type boundary struct {
	name  string
	token uint64 // the first token past the boundary
}

// issuerBoundaries are where 32-bit signed and unsigned integers wrap,
// where float64 stops being exact, and the end of a signed 64-bit integer
// (what Redis INCR, a BIGINT sequence and etcd revisions store).
var issuerBoundaries = []boundary{
	{"2^31", 1 << 31},
	{"2^32", 1 << 32},
	{"2^53", 1<<53 + 1},
	{"2^63-1", math.MaxInt64},
}

// tokenBoundaries starts a fresh resource's tokens just below each
// boundary and takes grants across it: each must be above the last, and an
// issuer that cannot go on (Redis and PostgreSQL stop at 2^63-1) must
// refuse the grant rather than wrap. An issuer that cannot start its
// tokens there skips the boundary and says so: etcd's revision advances
// one write at a time.
var tokenBoundaries = issuerScenario{
	name:   "token-boundaries",
	hazard: "tokens across 2^31, 2^32, 2^53 and 2^63-1 (32-bit, float64 and signed 64-bit issuers)",
	run: func(ctx context.Context, b *issuerScript) Row {
		expected := "3 grants from just below each boundary: each above the last; past 2^63-1 above it or refused"
		f, ok := b.svc.(lease.Floored)
		if !ok {
			return Row{Expected: expected, Observed: "skipped: the issuer cannot start a resource's tokens at a given value", Result: Skip}
		}
		var seen, bad, skipped, unanswered []string
		for _, bd := range issuerBoundaries {
			r := b.resource()
			f.StartAbove(r, bd.token-2)
			var tokens []uint64
			var refused error
			for i := range 3 {
				t, err := b.grant(ctx, r, i%2)
				if err != nil {
					refused = err
					break
				}
				tokens = append(tokens, t)
			}
			switch {
			case len(tokens) == 0 && (errors.Is(refused, context.DeadlineExceeded) || errors.Is(refused, context.Canceled)):
				// No answer in time is not a refusal: an issuer slowed
				// down (a loaded machine) says nothing of its sequence.
				unanswered = append(unanswered, fmt.Sprintf("%s: no grant within the deadline, not judged (%s)", bd.name, short(refused)))
			case len(tokens) == 0:
				bad = append(bad, fmt.Sprintf("%s: no grant: %s", bd.name, short(refused)))
			case tokens[0] < bd.token-1:
				skipped = append(skipped, fmt.Sprintf("%s (its tokens started at %d)", bd.name, tokens[0]))
			case sequence(tokens) != "":
				bad = append(bad, fmt.Sprintf("%s: %s", bd.name, sequence(tokens)))
			case refused != nil && tokens[len(tokens)-1] != math.MaxInt64 && tokens[len(tokens)-1] != math.MaxUint64:
				bad = append(bad, fmt.Sprintf("%s: refused after %d: %s", bd.name, tokens[len(tokens)-1], short(refused)))
			case refused != nil:
				seen = append(seen, fmt.Sprintf("%s: %d, then refused", bd.name, tokens[len(tokens)-1]))
			default:
				seen = append(seen, fmt.Sprintf("%s: %d→%d→%d", bd.name, tokens[0], tokens[1], tokens[2]))
			}
		}
		out := Row{Expected: expected, Observed: joinBad(seen)}
		switch {
		case len(bad) > 0:
			out.Observed, out.Result = joinBad(append(append(bad, seen...), unanswered...)), Fail
		case len(seen) == 0 && len(skipped) == 0:
			out.Observed, out.Result = "skipped: "+joinBad(unanswered), Skip
		case len(seen) == 0:
			out.Observed, out.Result = "skipped: the issuer cannot start tokens near "+joinBad(skipped), Skip
			if len(unanswered) > 0 {
				out.Observed += "; " + joinBad(unanswered)
			}
		default:
			out.Result = Pass
			if len(skipped) > 0 {
				out.Observed += "; not reached: " + joinBad(skipped)
			}
			if len(unanswered) > 0 {
				out.Observed += "; " + joinBad(unanswered)
			}
		}
		return out
	},
}
