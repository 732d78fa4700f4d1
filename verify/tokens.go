package verify

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
)

// boundaries are pairs of consecutive tokens where a receiver that
// compares tokens as strings ("10" < "9"), as float64 (2^53+1 == 2^53) or
// as signed 64-bit integers (2^63 < 0) gets the order wrong.
var boundaries = [][2]uint64{
	{9, 10}, {99, 100}, {999, 1000},
	{1 << 53, 1<<53 + 1},
	{math.MaxInt64, 1 << 63},
	{math.MaxUint64 - 1, math.MaxUint64},
}

// digitBoundaries writes each pair in order on a fresh resource, then the
// lower token again: the higher must be accepted, the repeat of the lower
// rejected.
var digitBoundaries = scenario{
	name:   "digit-boundaries",
	hazard: "tokens across digit boundaries, above 2^53 and 2^63 (string, float and signed comparisons)",
	run: func(ctx context.Context, s *script) Row {
		var bad []string
		for _, p := range boundaries {
			r := s.resource()
			lo := s.write(ctx, r, p[0], "lo")
			hi := s.write(ctx, r, p[1], "hi")
			again := s.write(ctx, r, p[0], "lo-again")
			got := s.read(ctx, r)
			if !lo.is(histories.Accepted) || !hi.is(histories.Accepted) || !again.is(histories.Rejected) || !got.holds("hi", p[1]) {
				bad = append(bad, fmt.Sprintf("%d→%d: %s, %s, %d again %s, %s", p[0], p[1], lo, hi, p[0], again, got))
			}
		}
		out := Row{Expected: "9→10, 99→100, 999→1000, 2^53→2^53+1, 2^63-1→2^63, 2^64-2→2^64-1: higher accepted, lower again rejected"}
		if len(bad) == 0 {
			out.Observed, out.Result = fmt.Sprintf("all %d pairs ordered as integers", len(boundaries)), Pass
			return out
		}
		out.Observed, out.Result = strings.Join(bad, "; "), Fail
		return out
	},
}
