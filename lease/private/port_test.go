package private

import (
	"context"
	"errors"
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/targets/process"
)

// TestFreePort: a port nothing listens on, never the same twice. Another
// process (the other test packages start private servers too) may take
// a port between its choice and the test's bind, as StartOnFreePort
// allows for; such a port must then have a listener, not be unusable.
func TestFreePort(t *testing.T) {
	t.Parallel()
	seen := map[int]bool{}
	for range 50 {
		port, err := FreePort()
		require.NoError(t, err)
		assert.False(t, seen[port], "port %d handed out twice", port)
		seen[port] = true
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			c, dialErr := net.Dial("tcp", addr)
			require.NoError(t, dialErr, "port %d can be neither bound (%v) nor reached: it was not free", port, err)
			require.NoError(t, c.Close())
			continue
		}
		require.NoError(t, ln.Close())
	}
}

// TestStartOnFreePort: a server whose chosen port another process took
// between the choice and the start is started on another port, not
// reported as a failed run; any other error is reported at once; a port
// taken every time ends in an error that says so.
func TestStartOnFreePort(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// taken returns a real child for port while something else listens
	// there, as another process that chose the same port would, until
	// the test ends.
	taken := func(t *testing.T, port int) (*process.Child, error) {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = ln.Close() })
		return process.NewChild("sleep 60", addr, process.DialReady(addr)), nil
	}
	t.Run("taken once", func(t *testing.T) {
		t.Parallel()
		var ports []int
		want := process.NewChild("sleep 60", "", func(context.Context) error { return nil })
		got, port, err := StartOnFreePort(ctx, func(port int) (*process.Child, error) {
			ports = append(ports, port)
			if len(ports) == 1 {
				return taken(t, port)
			}
			return want, nil
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = got.Stop(0) })
		assert.Same(t, want, got)
		require.Len(t, ports, 2)
		assert.NotEqual(t, ports[0], ports[1], "the taken port was chosen again")
		assert.Equal(t, ports[1], port)
	})
	t.Run("other error", func(t *testing.T) {
		t.Parallel()
		calls := 0
		boom := errors.New("initdb failed")
		_, _, err := StartOnFreePort(ctx, func(int) (*process.Child, error) {
			calls++
			return nil, boom
		})
		require.ErrorIs(t, err, boom)
		assert.Equal(t, 1, calls, "an error other than a taken port is not retried")
	})
	t.Run("always taken", func(t *testing.T) {
		t.Parallel()
		calls := 0
		_, _, err := StartOnFreePort(ctx, func(port int) (*process.Child, error) {
			calls++
			return taken(t, port)
		})
		require.ErrorIs(t, err, process.ErrAddrInUse)
		assert.Equal(t, portAttempts, calls)
		assert.Contains(t, err.Error(), "ports chosen in a row were taken by other processes")
		assert.Contains(t, err.Error(), "another process already listens on")
	})
}
