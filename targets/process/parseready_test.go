package process

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseReady: each kind of readiness check is read and works against
// a real server; a malformed value is refused, quoted.
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
			ready, err := ParseReady(tc.value, srv.URL+"/", addr)
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

// FuzzParseReady: any value is either refused with an error naming it
// or makes a check; no value panics, and tcp checks the given address.
func FuzzParseReady(f *testing.F) {
	for _, s := range []string{"tcp", "http-get:/health", "cmd:true", "tcp:1", "http-get:", "cmd:", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		ready, err := ParseReady(value, "http://127.0.0.1:1", "127.0.0.1:1")
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
