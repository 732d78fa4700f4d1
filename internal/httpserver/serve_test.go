package httpserver

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeUntilTheContextEnds: the server answers until its context
// ends, then Serve returns nil once it has shut down, and the port is
// free again.
func TestServeUntilTheContextEnds(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, srv, ln, time.Second) }()
	resp, err := http.Get("http://" + ln.Addr().String())
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusTeapot, resp.StatusCode)
	cancel()
	require.NoError(t, <-done)
	_, err = http.Get("http://" + ln.Addr().String())
	assert.Error(t, err, "no longer served")
}

// TestServeReportsAServerThatStops: a listener that fails ends Serve with
// its error.
func TestServeReportsAServerThatStops(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	require.NoError(t, ln.Close())
	assert.Error(t, Serve(context.Background(), &http.Server{}, ln, time.Second))
}
