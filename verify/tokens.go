package verify

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
)

// boundaries are pairs of consecutive tokens where a receiver that
// compares tokens as strings ("10" < "9"), as 32-bit integers (2^31 < 0,
// 2^32 == 0), as float64 (2^53+1 == 2^53) or as signed 64-bit integers
// (2^63 < 0) gets the order wrong.
var boundaries = [][2]uint64{
	{9, 10}, {99, 100}, {999, 1000},
	{1<<31 - 1, 1 << 31},
	{1<<32 - 1, 1 << 32},
	{1 << 53, 1<<53 + 1},
	{math.MaxInt64, 1 << 63},
	{math.MaxUint64 - 1, math.MaxUint64},
}

// domainPairs splits boundaries at the receiver's domain, whose largest
// token is maxToken: the pairs inside it, ending with the pair that reaches
// maxToken itself (the end of a BIGINT's domain is a boundary of its own),
// and the pairs outside it, which are never sent.
func domainPairs(maxToken uint64) (inside, outside [][2]uint64) {
	for _, p := range boundaries {
		if p[1] <= maxToken {
			inside = append(inside, p)
		} else {
			outside = append(outside, p)
		}
	}
	if last := inside[len(inside)-1]; last[1] != maxToken {
		inside = append(inside, [2]uint64{maxToken - 1, maxToken})
	}
	return inside, outside
}

// pairNames words pairs for the table: "9→10, 2^53→2^53+1".
func pairNames(pairs [][2]uint64) string {
	names := make([]string, len(pairs))
	for i, p := range pairs {
		names[i] = targets.TokenName(p[0]) + "→" + targets.TokenName(p[1])
	}
	return strings.Join(names, ", ")
}

// digitBoundaries writes each pair inside the receiver's token domain in
// order on a fresh resource, then the lower token again: the higher must be
// accepted, the repeat of the lower rejected. Pairs above the domain are
// not sent, and the row says so: a BIGINT column cannot hold 2^63, and
// refusing it is not a fencing bug.
var digitBoundaries = scenario{
	name:   "digit-boundaries",
	hazard: "tokens across digit boundaries, 2^31, 2^32, 2^53 and 2^63, up to the receiver's largest token (string, 32-bit, float and signed comparisons)",
	run: func(ctx context.Context, s *script) Row {
		inside, outside := domainPairs(s.o.MaxToken)
		var bad []string
		for _, p := range inside {
			r := s.resource()
			lo := s.write(ctx, r, p[0], "lo")
			hi := s.write(ctx, r, p[1], "hi")
			again := s.write(ctx, r, p[0], "lo-again")
			got := s.read(ctx, r)
			if !lo.is(histories.Accepted) || !hi.is(histories.Accepted) || !again.is(histories.Rejected) || !got.holds("hi", p[1]) {
				bad = append(bad, fmt.Sprintf("%d→%d: %s, %s, %d again %s, %s", p[0], p[1], lo, hi, p[0], again, got))
			}
		}
		out := Row{Expected: pairNames(inside) + ": higher accepted, lower again rejected"}
		skipped := ""
		if len(outside) > 0 {
			skipped = fmt.Sprintf("; not sent, above the receiver's largest token %s: %s", targets.TokenName(s.o.MaxToken), pairNames(outside))
		}
		if len(bad) == 0 {
			out.Observed, out.Result = fmt.Sprintf("all %d pairs ordered as integers%s", len(inside), skipped), Pass
			return out
		}
		out.Observed, out.Result = strings.Join(bad, "; ")+skipped, Fail
		return out
	},
}
