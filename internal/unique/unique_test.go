package unique

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHex: the length is as asked, the digits are hex, and two names
// differ (a collision of 8 random bytes would fail this once in 2^64).
func TestHex(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 6, 8} {
		t.Run("", func(t *testing.T) {
			a, b := Hex(n), Hex(n)
			assert.Len(t, a, 2*n)
			assert.Regexp(t, "^[0-9a-f]+$", a)
			if n >= 6 {
				assert.NotEqual(t, a, b)
			}
		})
	}
}
