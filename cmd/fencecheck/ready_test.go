package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseReady(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		paths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		paths = append(paths, r.URL.Path)
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	cases := []struct {
		value string
		err   string
	}{
		{"tcp", ""},
		{"http-get:/health", ""},
		{"cmd:true", ""},
		{"cmd:exit 3", "exit status 3"},
		{"tcp:", "tcp takes no argument"},
		{"tcp:8080", "tcp takes no argument"},
		{"http-get:", "PATH starting with /"},
		{"http-get:health", "PATH starting with /"},
		{"http-get:/a b", "space or a control character"},
		{"http-get:/a\x00", "space or a control character"},
		{"cmd:", "want cmd:COMMAND"},
		{"cmd: \t", "want cmd:COMMAND"},
		{"", "is not tcp, http-get:PATH or cmd:COMMAND"},
		{"http", "is not tcp"},
		{"TCP", "is not tcp"},
	}
	for _, tc := range cases {
		t.Run(tc.value, func(t *testing.T) {
			ready, err := parseReady(tc.value, srv.URL+"/", addr)
			if err == nil {
				err = ready(context.Background())
			}
			if tc.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"/health"}, paths, "http-get asks PATH below the base URL")
}

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

// FuzzParseReady: any value is either refused with an error naming it
// or makes a check; no value panics, and tcp checks the given address.
func FuzzParseReady(f *testing.F) {
	for _, s := range []string{"tcp", "http-get:/health", "cmd:true", "tcp:1", "http-get:", "cmd:", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		ready, err := parseReady(value, "http://127.0.0.1:1", "127.0.0.1:1")
		if (err == nil) == (ready == nil) {
			t.Fatalf("%q: want a check or an error, got %v, %v", value, ready != nil, err)
		}
		if err == nil {
			kind, _, _ := strings.Cut(value, ":")
			if kind != "tcp" && kind != "http-get" && kind != "cmd" {
				t.Fatalf("%q accepted", value)
			}
		}
	})
}

func TestTargetAddrIsWhatTCPReadinessDials(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	addr, err := targetAddr("http://" + ln.Addr().String() + "/base")
	require.NoError(t, err)
	ready, err := parseReady("tcp", "http://"+ln.Addr().String()+"/base", addr)
	require.NoError(t, err)
	assert.NoError(t, ready(context.Background()))
}
