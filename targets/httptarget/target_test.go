package httptarget

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/exampleapi"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// server is one API under test: a handler and the adapter that maps it.
type server struct {
	name    string
	handler func(*fencedMap) http.Handler
	adapter string // file in docs/adapters; "" for the default protocol
}

var servers = []server{
	{"default protocol (reference receiver)", nil, ""},
	{"kv API, token in a query parameter", kvServer, "kv-query.json"},
	{"JSON API that answers 200 with an error field", rpcServer, "json-error-field.json"},
	{"one path, 200 with an error text", example(exampleapi.ErrorText), "error-text.json"},
	{"token in a query parameter, refusal in a header", example(exampleapi.QueryToken), "query-token.json"},
	{"version field a JSON string", example(exampleapi.StringVersion), "string-version.json"},
}

// example serves a worked example's correct receiver in the table.
func example(h func(exampleapi.Bug) http.Handler) func(*fencedMap) http.Handler {
	return func(*fencedMap) http.Handler { return h(exampleapi.Correct) }
}

// start serves s over loopback, or in the process when inProcess.
func start(t *testing.T, s server, inProcess bool) (*Target, *fencedMap) {
	t.Helper()
	m := &fencedMap{cells: make(map[string]cellJSON)}
	rh, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	require.NoError(t, err)
	var h http.Handler = rh
	if s.handler != nil {
		h = s.handler(m)
	}
	var a Adapter
	if s.adapter != "" {
		var err error
		a, err = LoadAdapter(filepath.Join("..", "..", "docs", "adapters", s.adapter))
		require.NoError(t, err)
	}
	o := DefaultOptions()
	o.Adapter, o.Timeout = a, 5*time.Second
	base := "http://in-process"
	if inProcess {
		o.Transport = HandlerTransport(h)
	} else {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		base = srv.URL
	}
	tgt, err := New(base, o)
	require.NoError(t, err)
	require.NoError(t, tgt.Setup(context.Background()))
	return tgt, m
}

// TestSeedStepsOverEveryAPI plays the article's steps against the default
// protocol and both worked examples of docs/http-protocol.md, over
// loopback and in the process (HandlerTransport), with the same outcomes.
func TestSeedStepsOverEveryAPI(t *testing.T) {
	t.Parallel()
	for _, s := range servers {
		for _, inProcess := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s in process %v", s.name, inProcess), func(t *testing.T) {
				t.Parallel()
				seedSteps(t, s, inProcess)
			})
		}
	}
}

func seedSteps(t *testing.T, s server, inProcess bool) {
	ctx := context.Background()
	tgt, _ := start(t, s, inProcess)
	r, err := tgt.Read(ctx, "report")
	require.NoError(t, err)
	assert.Equal(t, targets.Reading{HasToken: true}, r, "never written")
	steps := []struct {
		token uint64
		value string
		want  histories.Outcome
	}{
		{42, "new-result", histories.Accepted},
		{41, "old-result", histories.Rejected},
		{42, "new-result", histories.Rejected},
		{1<<64 - 1, `quotes " and / slashes`, histories.Accepted},
	}
	for _, st := range steps {
		out, err := tgt.Write(ctx, "report", st.token, st.value)
		require.NoError(t, err)
		assert.Equal(t, st.want, out, "token %d", st.token)
	}
	r, err = tgt.Read(ctx, "report")
	require.NoError(t, err)
	assert.Equal(t, targets.Reading{Found: true, Value: `quotes " and / slashes`, Token: 1<<64 - 1, HasToken: true}, r)
	other, err := tgt.Read(ctx, "a resource/with spaces")
	require.NoError(t, err)
	assert.False(t, other.Found)
}

// TestUnexpectedAnswersAreUnknown: an answer that is neither accepted nor
// stale is an error (unknown outcome), never Rejected.
func TestUnexpectedAnswersAreUnknown(t *testing.T) {
	t.Parallel()
	for _, s := range servers[1:3] {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			tgt, m := start(t, s, false)
			m.fail = true
			_, err := tgt.Write(context.Background(), "r", 5, "v")
			require.Error(t, err)
			assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied)
		})
	}
}

func TestStatusMapping(t *testing.T) {
	t.Parallel()
	cases := []struct {
		status int
		want   histories.Outcome // 0: unknown
	}{
		{200, histories.Accepted}, {201, histories.Accepted}, {204, histories.Accepted},
		{409, histories.Rejected}, {412, histories.Rejected},
		{301, 0}, {400, 0}, {404, 0}, {413, 0}, {429, 0}, {500, 0}, {502, 0}, {503, 0},
	}
	for _, tc := range cases {
		t.Run(http.StatusText(tc.status), func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get(TokenHeader) != "7" {
					w.WriteHeader(599)
					return
				}
				w.Header().Set("Location", "/elsewhere")
				w.WriteHeader(tc.status)
			}))
			defer srv.Close()
			tgt, err := New(srv.URL, DefaultOptions())
			require.NoError(t, err)
			out, err := tgt.Write(context.Background(), "r", 7, "v")
			if tc.want == 0 {
				require.Error(t, err)
				assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied)
				assert.Contains(t, err.Error(), "unknown outcome")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, out)
		})
	}
}

func TestTimeoutAndLostConnectionAreUnknown(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
	}))
	defer slow.Close()
	defer close(release)
	o := DefaultOptions()
	o.Timeout = 50 * time.Millisecond
	tgt, err := New(slow.URL, o)
	require.NoError(t, err)
	_, err = tgt.Write(context.Background(), "r", 1, "v")
	require.Error(t, err)
	assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied)
	assert.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)

	hangup := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic(http.ErrAbortHandler) // the connection closes without an answer
	}))
	defer hangup.Close()
	tgt, err = New(hangup.URL, DefaultOptions())
	require.NoError(t, err)
	_, err = tgt.Write(context.Background(), "r", 1, "v")
	require.Error(t, err)
	assert.NotErrorIs(t, err, targets.ErrDefinitelyNotApplied)
}

// TestUnreachable: nothing listens, so nothing was sent; set-up names the
// receiver.
func TestUnreachable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	o := DefaultOptions()
	o.Timeout = time.Second
	tgt, err := New("http://"+addr, o)
	require.NoError(t, err)
	err = tgt.Setup(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "http://"+addr+" does not answer")
	_, err = tgt.Write(context.Background(), "r", 1, "v")
	assert.ErrorIs(t, err, targets.ErrDefinitelyNotApplied)
}

func TestAdapterValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, json, want string
	}{
		{"unknown field", `{"write": {"metod": "PUT"}}`, "metod"},
		{"path without resource", `{"write": {"path": "/x"}}`, "write.path"},
		{"token nowhere", `{"write": {"token_in": "cookie:x"}}`, "write.token_in"},
		{"body token without placeholder", `{"write": {"token_in": "body", "json_body": "{\"v\": {value}}"}}`, "{token}"},
		{"field outcome without values", `{"write": {"outcome_from": "field:error"}}`, "accepted_values"},
		{"bad value source", `{"read": {"value_from": "cookie:x"}}`, "read.value_from"},
		{"bad not-found", `{"read": {"not_found_from": "status"}}`, "read.not_found_from"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseAdapter([]byte(tc.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	_, err := ParseAdapter([]byte(`{}`))
	assert.NoError(t, err, "the empty adapter is the default protocol")
	_, err = New("ftp://x", DefaultOptions())
	assert.Error(t, err)
}

func TestOptionsOutOfRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no workers", func(o *Options) { o.Workers = 0 }, "Workers must be at least 1, not 0"},
		{"negative workers", func(o *Options) { o.Workers = -1 }, "Workers must be at least 1, not -1"},
		{"negative timeout", func(o *Options) { o.Timeout = -time.Second }, "Timeout -1s is negative"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := DefaultOptions()
			tc.edit(&o)
			_, err := New("http://127.0.0.1:1", o)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// A zero Timeout is no bound, not one that has already passed.
func TestZeroTimeoutIsNoBound(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	defer srv.Close()
	o := DefaultOptions()
	o.Timeout = 0
	tgt, err := New(srv.URL, o)
	require.NoError(t, err)
	out, err := tgt.Write(context.Background(), "r", 1, "v")
	require.NoError(t, err)
	assert.Equal(t, histories.Accepted, out)
}
