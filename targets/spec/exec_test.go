package targetspec

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/targets/process"
)

// TestTargetAddr: the receiver process of Exec listens where the spec
// says, with the scheme's default port; a spec without one host is
// refused without quoting its password.
func TestTargetAddr(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"http://127.0.0.1:8787":        "127.0.0.1:8787",
		"http://127.0.0.1:8787/api/":   "127.0.0.1:8787",
		"http://localhost":             "localhost:80",
		"https://example.test":         "example.test:443",
		"http://[::1]:9000":            "[::1]:9000",
		"http://user:secret@host:1234": "host:1234",
	}
	for spec, want := range cases {
		got, err := targetAddr(spec)
		require.NoError(t, err, spec)
		assert.Equal(t, want, got, spec)
	}
	for _, bad := range []string{"http://", "http://user:secret@[::1", "http:///path"} {
		_, err := targetAddr(bad)
		require.Error(t, err, bad)
		assert.NotContains(t, err.Error(), "secret")
	}
}

func TestTargetAddrIsWhatTCPReadinessDials(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	addr, err := targetAddr("http://" + ln.Addr().String() + "/base")
	require.NoError(t, err)
	ready, err := process.ParseReady("tcp", "http://"+ln.Addr().String()+"/base", addr)
	require.NoError(t, err)
	assert.NoError(t, ready(context.Background()))
}
