package process

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadyChecks(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closedAddr := closed.Addr().String()
	require.NoError(t, closed.Close())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable) // any answer means it serves
	}))
	t.Cleanup(srv.Close)

	cases := []struct {
		name  string
		ready Ready
		err   string // "" when ready
	}{
		{"tcp: listening", DialReady(ln.Addr().String()), ""},
		{"tcp: nothing listens", DialReady(closedAddr), "connect to " + closedAddr},
		{"http-get: any status", HTTPGetReady(srv.URL + "/health"), ""},
		{"http-get: nothing listens", HTTPGetReady("http://" + closedAddr + "/health"), "connection refused"},
		{"cmd: exits 0", CommandReady("test -d /"), ""},
		{"cmd: exits 3", CommandReady("echo not yet; exit 3"), "exit status 3; its output ends:\nnot yet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.ready(context.Background())
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// TestCommandReadyEndsAHungProbe: when its attempt ends, a probe command
// is killed with everything it forked.
func TestCommandReadyEndsAHungProbe(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- CommandReady("sleep 60 & echo $! > " + pidFile + "; wait")(ctx) }()
	var pid int
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil && pid > 0
	}, 30*time.Second, 5*time.Millisecond, "the probe never started")
	cancel()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the probe outlived its context")
	}
	require.Eventually(t, func() bool { return !alive(pid) }, 30*time.Second, 5*time.Millisecond,
		"the probe's own child outlived it")
}
