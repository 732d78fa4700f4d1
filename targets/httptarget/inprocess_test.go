package httptarget

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/targets"
)

// TestHandlerGetsAServerRequest: the handler sees what net/http's server
// would give it, not the client's request.
func TestHandlerGetsAServerRequest(t *testing.T) {
	t.Parallel()
	var got *http.Request
	var body string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		b, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		body = string(b)
		w.WriteHeader(http.StatusNoContent)
	})
	o := DefaultOptions()
	o.Transport = HandlerTransport(h)
	tgt, err := New("http://in-process/api?key=k1", o)
	require.NoError(t, err)
	out, err := tgt.Write(t.Context(), "r 1", 7, "the value")
	require.NoError(t, err)
	assert.Equal(t, "accepted", out.String())
	require.NotNil(t, got)
	assert.Equal(t, http.MethodPut, got.Method)
	assert.Equal(t, "/api/resources/r%201?key=k1", got.RequestURI)
	assert.Equal(t, "/api/resources/r 1", got.URL.Path)
	assert.Empty(t, got.URL.Host, "a server's URL has path and query only")
	assert.Equal(t, "in-process", got.Host)
	assert.Equal(t, "192.0.2.1:1234", got.RemoteAddr)
	assert.Equal(t, "HTTP/1.1", got.Proto)
	assert.Equal(t, "7", got.Header.Get(TokenHeader))
	assert.Equal(t, "the value", body)
	assert.Equal(t, int64(len("the value")), got.ContentLength)
}

// TestInProcessAnswers: the answer is what the handler wrote, as a
// connection carries it.
func TestInProcessAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		handler http.HandlerFunc
		status  int
		header  http.Header // each must be in the answer
		body    string
		err     string // RoundTrip's error instead of an answer
	}{
		{"a write without a status is 200, its type sniffed", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "<html>")
		}, 200, http.Header{"Content-Type": {"text/html; charset=utf-8"}, "Content-Length": {"6"}}, "<html>", ""},
		{"informational statuses are not the answer", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusConflict)
			w.WriteHeader(http.StatusOK)
		}, 409, nil, "", ""},
		{"headers set after the status are not sent", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("X-Before", "1")
			w.WriteHeader(http.StatusCreated)
			w.Header().Set("X-After", "1")
		}, 201, http.Header{"X-Before": {"1"}}, "", ""},
		{"no body with 204", func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusNoContent)
			_, err := io.WriteString(w, "ignored")
			assert.ErrorIs(t, err, http.ErrBodyNotAllowed)
		}, 204, nil, "", ""},
		{"a panic is a lost answer", func(http.ResponseWriter, *http.Request) { panic("boom") }, 0, nil, "", "handler panicked: boom"},
		{"an aborted handler too", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }, 0, nil, "", "handler aborted the answer"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://in-process/x", nil)
			require.NoError(t, err)
			resp, err := HandlerTransport(tc.handler).RoundTrip(req)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, tc.status, resp.StatusCode)
			for name, values := range tc.header {
				assert.Equal(t, values, resp.Header.Values(name), name)
			}
			assert.Empty(t, resp.Header.Get("X-After"))
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.body, string(b))
		})
	}
}

// TestInProcessAnswerTooLarge: a handler that writes more than the target
// reads is stopped there, and the target says the answer is too large.
func TestInProcessAnswerTooLarge(t *testing.T) {
	t.Parallel()
	var werr error
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		chunk := strings.Repeat("x", 1<<20)
		for werr == nil {
			_, werr = io.WriteString(w, chunk)
		}
	})
	o := DefaultOptions()
	o.Transport = HandlerTransport(h)
	tgt, err := New("http://in-process", o)
	require.NoError(t, err)
	_, err = tgt.Read(t.Context(), "r")
	require.ErrorContains(t, err, "larger than")
	assert.ErrorIs(t, werr, errAnswerTooLarge)
}

// TestInProcessRequestEnds: a handler that does not answer holds the
// request until the target's timeout, an unknown outcome, and sees its
// request's context end then, as a server does when its client leaves.
// On a synctest bubble's clock the two seconds pass at once.
func TestInProcessRequestEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		ended := make(chan error, 1)
		h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
			ended <- r.Context().Err()
		})
		o := DefaultOptions()
		o.Transport = HandlerTransport(h)
		tgt, err := New("http://in-process", o)
		require.NoError(t, err)
		began := time.Now()
		_, err = tgt.Write(t.Context(), "r", 3, "v")
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied, "the handler had the write: unknown")
		assert.Equal(t, o.Timeout, time.Since(began))
		assert.ErrorIs(t, <-ended, context.DeadlineExceeded)

		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err = tgt.Write(ctx, "r", 4, "v")
		require.ErrorIs(t, err, context.Canceled, "a request whose context ended is not served")
	})
}
