package private

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFreePort: a port nothing listens on, never the same twice.
func TestFreePort(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for range 50 {
		port, err := FreePort()
		require.NoError(t, err)
		assert.False(t, seen[port], "port %d handed out twice", port)
		seen[port] = true
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		require.NoError(t, err, "port %d is not free", port)
		require.NoError(t, ln.Close())
	}
}
