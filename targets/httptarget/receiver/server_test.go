package receiver

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/internal/httpserver"
)

func TestServeRejectsANegativeGrace(t *testing.T) {
	t.Parallel()
	o := DefaultServerOptions()
	o.Listen, o.ShutdownGrace = "127.0.0.1:0", -time.Second
	err := Serve(context.Background(), http.NotFoundHandler(), o)
	require.ErrorContains(t, err, "ShutdownGrace -1s is negative")
}

// TestServerTimeoutsComeFromTheOptions: every timeout of the server is
// the option's, so a slow client is cut off (http.Server's own tests
// cover how it does that; this one does not time a slow client).
func TestServerTimeoutsComeFromTheOptions(t *testing.T) {
	t.Parallel()
	def := DefaultServerOptions().Timeouts
	assert.Equal(t, httpserver.Timeouts{ReadHeader: 5 * time.Second, Read: 10 * time.Second, Write: 10 * time.Second, Idle: 60 * time.Second}, def,
		"the defaults docs/http-protocol.md gives")
	o := DefaultServerOptions()
	o.Listen = "127.0.0.1:0"
	o.Timeouts = httpserver.Timeouts{ReadHeader: 1 * time.Second, Read: 2 * time.Second, Write: 3 * time.Second, Idle: 4 * time.Second}
	srv, err := newServer(http.NotFoundHandler(), o)
	require.NoError(t, err)
	assert.Equal(t, []time.Duration{1 * time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second},
		[]time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout})
	assert.Equal(t, maxHeaderBytes, srv.MaxHeaderBytes)

	o.Timeouts.Read = 0
	_, err = newServer(http.NotFoundHandler(), o)
	require.ErrorContains(t, err, "Read timeout must be positive, not 0s")
}

// TestServerAnswersOnlyAllowedHosts: a request for a host other than
// loopback, the listen host and the given names gets 421 (the receiver
// answered any Host before, so a page could write to it by DNS
// rebinding); AllowRemote answers them all.
func TestServerAnswersOnlyAllowedHosts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, listen, host string
		hosts              []string
		allowRemote        bool
		want               int
	}{
		{"another site", "127.0.0.1:8787", "evil.example", nil, false, http.StatusMisdirectedRequest},
		{"another site with the port", "127.0.0.1:8787", "evil.example:8787", nil, false, http.StatusMisdirectedRequest},
		{"127.0.0.1", "127.0.0.1:8787", "127.0.0.1:8787", nil, false, http.StatusNotFound},
		{"localhost", "127.0.0.1:8787", "localhost:8787", nil, false, http.StatusNotFound},
		{"[::1]", "127.0.0.1:8787", "[::1]:8787", nil, false, http.StatusNotFound},
		{"a given name", "127.0.0.1:8787", "receiver.lan:8787", []string{"receiver.lan"}, false, http.StatusNotFound},
		{"another name than the given", "127.0.0.1:8787", "evil.example", []string{"receiver.lan"}, false, http.StatusMisdirectedRequest},
		{"the listen host", "10.1.2.3:8787", "10.1.2.3:8787", nil, true, http.StatusNotFound},
		{"remote clients allowed", "0.0.0.0:8787", "evil.example", nil, true, http.StatusNotFound},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h, err := NewHandler(NewMemory(), DefaultOptions())
			require.NoError(t, err)
			o := DefaultServerOptions()
			o.Listen, o.Hosts, o.AllowRemote = c.listen, c.hosts, c.allowRemote
			o.HostHint = func(host string) string { return "allow " + host }
			srv, err := newServer(h, o)
			require.NoError(t, err)
			r := httptest.NewRequest(http.MethodGet, "/resources/r1", nil)
			r.Host = c.host
			w := httptest.NewRecorder()
			srv.Handler.ServeHTTP(w, r)
			assert.Equal(t, c.want, w.Code, w.Body.String())
			if c.want == http.StatusMisdirectedRequest {
				assert.Contains(t, w.Body.String(), `host "`+c.host+`"`)
				assert.Contains(t, w.Body.String(), "allow evil.example")
			}
		})
	}
}

// TestReadyComesBeforeAnyRequest: what Ready prints precedes every line
// of the request log, even for a request that arrived while Ready ran, so
// a receiver.log always starts with the receiver's "listening on" line
// (--log-fail patterns name its line number). Ready here sends a request
// itself and gives the server a while to answer it, which it must not
// do before Ready returns; then it writes its line.
func TestReadyComesBeforeAnyRequest(t *testing.T) {
	t.Parallel()
	var log lockedBuffer
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	answered := make(chan error, 1)
	o := DefaultServerOptions()
	o.Listen = "127.0.0.1:0"
	o.Ready = func(addr net.Addr) {
		c, err := net.Dial("tcp", addr.String())
		if err == nil {
			_, err = io.WriteString(c, "GET /resources/r0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
		}
		if err != nil {
			answered <- err
			return
		}
		early := make(chan struct{})
		go func() {
			defer c.Close()
			_, err := http.ReadResponse(bufio.NewReader(c), nil)
			close(early)
			answered <- err
		}()
		select {
		case <-early:
			t.Error("the request was answered before Ready returned")
		case <-time.After(200 * time.Millisecond):
		}
		_, _ = io.WriteString(&log, "listening\n")
	}
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, LogRequests(newHandler(t, NewMemory(), DefaultOptions()), &log), o) }()
	require.NoError(t, <-answered)
	stop()
	require.NoError(t, <-served)
	lines := log.lines()
	require.Len(t, lines, 2)
	assert.Equal(t, "listening", lines[0])
	assert.Contains(t, lines[1], "msg=request method=GET resource=r0 status=404")
}
