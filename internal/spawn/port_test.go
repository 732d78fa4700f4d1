package spawn

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFreePort: the ports are distinct, below the kernel's ephemeral
// range (where listeners on port 0 and outgoing connections take theirs)
// and can be listened on; and they are a walk, each after the one before
// (or back at the range's start), so that two processes choosing ports
// meet only where their walks overlap.
func TestFreePort(t *testing.T) {
	t.Parallel()
	ports, err := FreePorts(50)
	require.NoError(t, err)
	seen := map[int]bool{}
	wraps := 0
	for i, p := range ports {
		assert.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
		assert.GreaterOrEqual(t, p, lowestPort)
		assert.Less(t, p, ephemeralLow())
		if i > 0 && p < ports[i-1] {
			wraps++
		}
	}
	assert.LessOrEqual(t, wraps, 1, "the walk went round the range once at most: %v", ports)
	if wraps == 0 {
		// Ports skipped were taken by other processes: a handful at most.
		assert.Less(t, ports[len(ports)-1]-ports[0], 200, "not a walk: %v", ports)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])))
	require.NoError(t, err)
	require.NoError(t, ln.Close())
}
