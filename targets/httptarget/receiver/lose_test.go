package receiver

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoseAcknowledged: every 50th accepted write is answered 204 and not
// stored; every other answer is the correct receiver's, rejections do not
// count, and the fence holds.
func TestLoseAcknowledged(t *testing.T) {
	t.Parallel()
	h := newHandler(t, NewMemory(), bugOptions(LoseAcknowledged))
	accepted := 0
	for tok := 1; tok <= 120; tok++ {
		value := fmt.Sprintf("v%d", tok)
		require.Equal(t, http.StatusNoContent, put(h, "r", fmt.Sprint(tok), value).Code, "token %d", tok)
		accepted++
		if tok > 1 {
			require.Equal(t, http.StatusConflict, put(h, "r", fmt.Sprint(tok-1), "stale").Code, "rejected, and not counted")
		}
		got := get(h, "r")
		if accepted%loseEvery == 0 {
			assert.Equal(t, fmt.Sprintf("v%d", tok-1), got.Body.String(), "token %d: acknowledged and lost", tok)
			continue
		}
		assert.Equal(t, value, got.Body.String(), "token %d", tok)
	}
}
