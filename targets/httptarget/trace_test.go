package httptarget

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/targets"
	"github.com/fencecheck/fencecheck/targets/httptarget/receiver"
)

// headerSpy serves the reference receiver and keeps, per request, the
// headers the test asks about.
type headerSpy struct {
	mu   sync.Mutex
	seen []http.Header
}

func (s *headerSpy) start(t *testing.T, o Options) *Target {
	t.Helper()
	rh, err := receiver.NewHandler(receiver.NewMemory(), receiver.DefaultOptions())
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Header.Clone())
		s.mu.Unlock()
		rh.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	tgt, err := New(srv.URL, o)
	require.NoError(t, err)
	return tgt
}

// last returns the headers of the last request.
func (s *headerSpy) last(t *testing.T) http.Header {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.seen)
	return s.seen[len(s.seen)-1]
}

var opTrace = targets.TraceContext{
	TraceID: [16]byte{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
	SpanID:  [8]byte{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
}

// TestEveryRequestOfAnOperationCarriesItsTraceparent: writes, writes
// without a token and reads send the operation's traceparent; a request
// outside an operation (the set-up's probe) sends none.
func TestEveryRequestOfAnOperationCarriesItsTraceparent(t *testing.T) {
	t.Parallel()
	var spy headerSpy
	tgt := spy.start(t, DefaultOptions())
	require.True(t, tgt.CarriesTrace())
	ctx := targets.WithTrace(context.Background(), opTrace)
	const want = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

	require.NoError(t, tgt.Setup(context.Background()))
	assert.Empty(t, spy.last(t).Values("Traceparent"), "the set-up's probe is no operation")

	for name, send := range map[string]func() error{
		"write": func() error {
			out, err := tgt.Write(ctx, "r0", 5, "v")
			assert.Equal(t, histories.Accepted, out)
			return err
		},
		"write without a token": func() error {
			// The reference receiver answers it 400 (see
			// WriteWithoutToken): its request was sent all the same.
			_, _ = tgt.WriteWithoutToken(ctx, "r0", "v")
			return nil
		},
		"read": func() error { _, err := tgt.Read(ctx, "r0"); return err },
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, send())
			assert.Equal(t, []string{want}, spy.last(t).Values("Traceparent"))
		})
	}
}

// TestTheUsersTraceparentWins: a traceparent in the user's headers or
// the adapter's is sent as it is, and the target then carries no trace
// of its own (the history records none).
func TestTheUsersTraceparentWins(t *testing.T) {
	t.Parallel()
	const theirs = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	cases := map[string]Options{
		"--header":        {Header: http.Header{"traceparent": {theirs}}},
		"adapter headers": {Adapter: Adapter{Write: WriteSpec{Headers: map[string]string{"TraceParent": theirs}}}},
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			d := DefaultOptions()
			d.Header, d.Adapter = o.Header, o.Adapter
			var spy headerSpy
			tgt := spy.start(t, d)
			assert.False(t, tgt.CarriesTrace())
			_, err := tgt.Write(targets.WithTrace(context.Background(), opTrace), "r0", 5, "v")
			require.NoError(t, err)
			assert.Equal(t, []string{theirs}, spy.last(t).Values("Traceparent"))
		})
	}
}

// TestTheTraceIDPlaceholder: {trace_id} in the adapter's header and query
// templates is the operation's trace id, for a receiver that logs a
// request id of its own.
func TestTheTraceIDPlaceholder(t *testing.T) {
	t.Parallel()
	d := DefaultOptions()
	d.Adapter = Adapter{
		Write: WriteSpec{Headers: map[string]string{"X-Request-Id": "{trace_id}"}},
		Read:  ReadSpec{Headers: map[string]string{"X-Request-Id": "{trace_id}"}},
	}
	var spy headerSpy
	tgt := spy.start(t, d)
	assert.True(t, tgt.CarriesTrace(), "a request id beside it is no traceparent of the user's")
	ctx := targets.WithTrace(context.Background(), opTrace)
	_, err := tgt.Write(ctx, "r0", 5, "v")
	require.NoError(t, err)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", spy.last(t).Get("X-Request-Id"))
	_, err = tgt.Read(ctx, "r0")
	require.NoError(t, err)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", spy.last(t).Get("X-Request-Id"))
}
