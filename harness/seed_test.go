package harness

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRandomSeedFitsASignedInteger: a drawn seed is below 2^63, and two
// draws differ.
func TestRandomSeedFitsASignedInteger(t *testing.T) {
	t.Parallel()
	a, b := RandomSeed(), RandomSeed()
	assert.LessOrEqual(t, a, uint64(math.MaxInt64))
	assert.LessOrEqual(t, b, uint64(math.MaxInt64))
	assert.NotEqual(t, a, b)
}
