package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/browse"
)

// TestServeServerTimeouts: serve's server has every timeout set, from
// browse's defaults (only the read-header timeout was set before, so a
// client sending its body slowly held a connection forever). The test
// checks the server's fields rather than timing a slow client.
func TestServeServerTimeouts(t *testing.T) {
	t.Parallel()
	srv, err := newServeServer(http.NotFoundHandler(), serveFlags{listen: "127.0.0.1:8080"})
	require.NoError(t, err)
	want := browse.DefaultServerOptions().Timeouts
	assert.Equal(t, []time.Duration{10 * time.Second, 10 * time.Second, 60 * time.Second, 60 * time.Second},
		[]time.Duration{want.ReadHeader, want.Read, want.Write, want.Idle}, "the values docs/reports.md gives")
	assert.Equal(t, []time.Duration{want.ReadHeader, want.Read, want.Write, want.Idle},
		[]time.Duration{srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout})
	assert.Positive(t, srv.MaxHeaderBytes)

	for _, c := range []struct {
		flags serveFlags
		want  int
	}{
		{serveFlags{listen: "127.0.0.1:8080"}, http.StatusMisdirectedRequest},
		{serveFlags{listen: "127.0.0.1:8080", hosts: []string{"evil.example"}}, http.StatusNotFound},
		{serveFlags{listen: "127.0.0.1:8080", allowRemote: true}, http.StatusNotFound},
	} {
		srv, err := newServeServer(http.NotFoundHandler(), c.flags)
		require.NoError(t, err)
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = "evil.example:8080"
		w := httptest.NewRecorder()
		srv.Handler.ServeHTTP(w, r)
		assert.Equal(t, c.want, w.Code, "%+v: %s", c.flags, w.Body.String())
	}
}
