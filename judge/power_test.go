package judge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStaleBound: the bound a pass states is the exact binomial one: a
// receiver that accepts stale writes at the bound's rate passes n stale
// writes with probability 5 %, and it approaches the rule of three (3/n)
// as n grows. The sentence a gate owner reads names a rate at or above
// the bound, never below it.
func TestStaleBound(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n        int
		bound    float64
		sentence string
	}{
		{0, 1, ""},
		{1, 0.95, "a receiver that accepted every stale write would have failed this run with 95 % probability (1 stale writes tested, all rejected; the rate ruled out at 95 % confidence is 95 %)"},
		{9, 0.28313, "a receiver that accepted 1 stale write in 3 would have failed this run with 95 % probability (9 stale writes tested, all rejected; the rate ruled out at 95 % confidence is 28.3 %)"},
		{20, 0.13911, "a receiver that accepted 1 stale write in 7 would have failed this run with 95 % probability (20 stale writes tested, all rejected; the rate ruled out at 95 % confidence is 13.9 %)"},
		{1000, 0.0029913, "a receiver that accepted 1 stale write in 334 would have failed this run with 95 % probability (1000 stale writes tested, all rejected; the rate ruled out at 95 % confidence is 0.299 %)"},
	}
	for _, tc := range cases {
		p := powerOf(Coverage{StaleWrites: tc.n, StaleRejected: tc.n})
		assert.Equal(t, tc.n, p.StaleTested)
		assert.InDelta(t, tc.bound, p.StaleBound, 1e-5, "n=%d", tc.n)
		assert.Equal(t, tc.sentence, p.Sentence())
		if tc.n > 0 {
			miss := 1.0 // the chance a receiver at the bound's rate passes
			for range tc.n {
				miss *= 1 - p.StaleBound
			}
			assert.InDelta(t, 1-BoundConfidence, miss, 1e-9, "n=%d", tc.n)
		}
	}
	for _, n := range []int{1000, 1_000_000} {
		assert.InDelta(t, 3.0/float64(n), staleBound(n, BoundConfidence), 0.01*3/float64(n), "the rule of three at n=%d", n)
	}
}
