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
// and can be listened on.
func TestFreePort(t *testing.T) {
	t.Parallel()
	ports, err := FreePorts(50)
	require.NoError(t, err)
	seen := map[int]bool{}
	for _, p := range ports {
		assert.False(t, seen[p], "port %d handed out twice", p)
		seen[p] = true
		assert.GreaterOrEqual(t, p, lowestPort)
		assert.Less(t, p, ephemeralLow())
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[0])))
	require.NoError(t, err)
	require.NoError(t, ln.Close())
}
