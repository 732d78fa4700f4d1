package httptarget

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// guard answers 401 unless a request carries every credential: Basic
// authentication alice:pw-userinfo, X-Api-Key key-header and the query
// parameter api_key=key-query; it counts the requests it let through.
func guard(next http.Handler, passed *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pw, ok := r.BasicAuth()
		if !ok || user != "alice" || pw != "pw-userinfo" || r.Header.Get("X-Api-Key") != "key-header" || r.URL.Query().Get("api_key") != "key-query" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		passed.Add(1)
		q := r.URL.Query()
		q.Del("api_key")
		r.URL.RawQuery = q.Encode()
		next.ServeHTTP(w, r)
	})
}

// TestCredentialsSentOnEveryRequest: user information, the base URL's
// query and Options.Header reach the receiver on writes and reads, over
// the default protocol and over an adapter that puts the token in the
// query too.
func TestCredentialsSentOnEveryRequest(t *testing.T) {
	t.Parallel()
	for _, s := range servers[:2] {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			var h http.Handler
			if s.handler != nil {
				h = s.handler(&fencedMap{cells: make(map[string]cellJSON)})
			} else {
				rh, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
				require.NoError(t, err)
				h = rh
			}
			var passed atomic.Int64
			srv := httptest.NewServer(guard(h, &passed))
			t.Cleanup(srv.Close)
			o := DefaultOptions()
			o.Timeout, o.Header = 5*time.Second, http.Header{"X-Api-Key": {"key-header"}}
			if s.adapter != "" {
				a, err := LoadAdapter(filepath.Join("..", "..", "docs", "adapters", s.adapter))
				require.NoError(t, err)
				o.Adapter = a
			}
			base := strings.Replace(srv.URL, "http://", "http://alice:pw-userinfo@", 1) + "/?api_key=key-query"
			tgt, err := New(base, o)
			require.NoError(t, err)
			require.NoError(t, tgt.Setup(context.Background()))
			out, err := tgt.Write(context.Background(), "r", 42, "v42")
			require.NoError(t, err)
			assert.Equal(t, histories.Accepted, out)
			got, err := tgt.Read(context.Background(), "r")
			require.NoError(t, err)
			assert.Equal(t, "v42", got.Value)
			assert.EqualValues(t, 3, passed.Load(), "the probe, the write and the read")
		})
	}
}

// TestErrorsHideCredentials: the HTTP client's errors quote the request
// URL and a receiver may echo what it got; neither reaches the target's
// errors with a credential in it.
func TestErrorsHideCredentials(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad request "+r.URL.String()+" "+r.Header.Get("Authorization"), http.StatusInternalServerError)
	}))
	t.Cleanup(echo.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	unreachable := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	cases := []struct {
		name, base string
		answers    bool // Setup passes on any answer
	}{
		{"unreachable", unreachable, false},
		{"a receiver that echoes the request", echo.URL, true},
	}
	secrets := []string{"pw-userinfo", "tok-query", "bearer-header"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			o.Timeout, o.Header = 5*time.Second, http.Header{"Authorization": {"Bearer bearer-header"}}
			tgt, err := New(strings.Replace(tc.base, "http://", "http://alice:pw-userinfo@", 1)+"?token=tok-query", o)
			require.NoError(t, err)
			var errs []error
			if err := tgt.Setup(context.Background()); !tc.answers {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "alice:xxxxx@")
				errs = append(errs, err)
			}
			_, err = tgt.Write(context.Background(), "r", 1, "v")
			errs = append(errs, err)
			_, err = tgt.Read(context.Background(), "r")
			errs = append(errs, err)
			for _, err := range errs {
				require.Error(t, err)
				for _, s := range secrets {
					assert.NotContains(t, err.Error(), s)
				}
			}
		})
	}
}

func TestBadHeaderRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		header http.Header
		want   string
	}{
		{"empty name", http.Header{"": {"v"}}, "empty header name"},
		{"space in the name", http.Header{"X Key": {"v"}}, `header name "X Key"`},
		{"colon in the name", http.Header{"X:Key": {"v"}}, `header name "X:Key"`},
		{"newline in the value", http.Header{"X-Key": {"s3cret\r\nX-Evil: 1"}}, "control character"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			o.Header = tc.header
			_, err := New("http://127.0.0.1:1", o)
			require.ErrorContains(t, err, tc.want)
			assert.NotContains(t, err.Error(), "s3cret")
		})
	}
}
