package models

import (
	"fmt"
	"math"
	"testing"
)

// TestLowestBlocker checks lowestBlocker against Blocks, which it stands
// for in the fencing cap's binary search: for every token, the accepted
// tokens that block it are exactly those at or above the lowest blocker.
func TestLowestBlocker(t *testing.T) {
	t.Parallel()
	edges := []uint64{0, 1, 2, 41, 42, 43, math.MaxUint64 - 1, math.MaxUint64}
	for _, p := range []Policy{Strict, AcceptEqual} {
		for _, token := range edges {
			t.Run(fmt.Sprintf("%s/%d", p, token), func(t *testing.T) {
				lowest, ok := p.lowestBlocker(token)
				for _, accepted := range edges {
					want := p.Blocks(accepted, token)
					got := ok && accepted >= lowest
					if got != want {
						t.Errorf("accepted %d: at or above the lowest blocker (%d, %v) = %v, Blocks = %v",
							accepted, lowest, ok, got, want)
					}
				}
			})
		}
	}
}
