package tick

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestEveryCallsOnceMoreAtStop: stop returns after a last call, so that
// what it shows is final, and no call comes after it.
func TestEveryCallsOnceMoreAtStop(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	stop := Every(time.Hour, func() { calls.Add(1) })
	stop()
	assert.Equal(t, int64(1), calls.Load(), "the last call, at stop")
}
