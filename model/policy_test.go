package model

import (
	"fmt"
	"math"
	"testing"
)

var policyEdges = []uint64{0, 1, 2, 41, 42, 43, math.MaxUint64 - 1, math.MaxUint64}

// TestLowestBar checks LowestBar against MayAccept, which it stands for
// in the fencing cap's binary search: for every token, the accepted
// tokens after which it may no longer be accepted are exactly those at or
// above the lowest bar.
func TestLowestBar(t *testing.T) {
	t.Parallel()
	for _, p := range []Policy{Strict, AcceptEqual} {
		for _, token := range policyEdges {
			t.Run(fmt.Sprintf("%s/%d", p, token), func(t *testing.T) {
				lowest, ok := p.LowestBar(token)
				for _, accepted := range policyEdges {
					want := !p.MayAccept(accepted, token)
					got := ok && accepted >= lowest
					if got != want {
						t.Errorf("accepted %d: at or above the lowest bar (%d, %v) = %v, !MayAccept = %v",
							accepted, lowest, ok, got, want)
					}
				}
			})
		}
	}
}

// TestPolicyRelations pins the two relations at the edges: strict is
// deterministic (exactly one answer is legal), accept-equal allows both
// answers exactly at an equal token, and every answer strict allows,
// accept-equal allows too.
func TestPolicyRelations(t *testing.T) {
	t.Parallel()
	for _, highest := range policyEdges {
		for _, token := range policyEdges {
			t.Run(fmt.Sprintf("%d/%d", highest, token), func(t *testing.T) {
				sa, sr := Strict.MayAccept(highest, token), Strict.MayReject(highest, token)
				aa, ar := AcceptEqual.MayAccept(highest, token), AcceptEqual.MayReject(highest, token)
				if sa == sr {
					t.Errorf("strict: accept %v, reject %v; want exactly one", sa, sr)
				}
				if both := aa && ar; both != (token == highest) {
					t.Errorf("accept-equal: both answers legal = %v, want %v", both, token == highest)
				}
				if !aa && !ar {
					t.Error("accept-equal: no answer legal")
				}
				if sa && !aa || sr && !ar {
					t.Errorf("strict allows accept %v / reject %v, accept-equal only %v / %v", sa, sr, aa, ar)
				}
			})
		}
	}
}
