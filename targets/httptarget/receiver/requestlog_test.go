package receiver

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lockedBuffer is a log several requests may write to at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSuffix(l.b.String(), "\n"), "\n")
}

const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

// TestTheRequestLogNamesEachRequestAndItsTrace: one line per request,
// after its answer, with its resource, token, status and the trace id of
// a valid traceparent.
func TestTheRequestLogNamesEachRequestAndItsTrace(t *testing.T) {
	t.Parallel()
	var log lockedBuffer
	h := LogRequests(newHandler(t, NewMemory(), DefaultOptions()), &log)
	send := func(method, path, token, tp string) {
		req := httptest.NewRequest(method, path, strings.NewReader("v"))
		if token != "" {
			req.Header.Set(TokenHeader, token)
		}
		if tp != "" {
			req.Header.Set("Traceparent", tp)
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
	}
	send(http.MethodPut, "/resources/r0", "42", traceparent)
	send(http.MethodPut, "/resources/r0", "41", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")
	send(http.MethodGet, "/resources/r1", "", "")
	send(http.MethodGet, "/resources/r0", "", "00-00000000000000000000000000000000-b7ad6b7169203331-01")
	send(http.MethodGet, "/no-such-page", "", "not a traceparent")
	send(http.MethodPut, "/resources/a%0Atime=forged", "43", traceparent)

	lines := log.lines()
	require.Len(t, lines, 6, "one line per request, none forged: %q", lines)
	want := []string{
		"msg=request method=PUT resource=r0 token=42 status=204 trace_id=4bf92f3577b34da6a3ce929d0e0e4736",
		"msg=request method=PUT resource=r0 token=41 status=409 trace_id=0af7651916cd43dd8448eb211c80319c",
		"msg=request method=GET resource=r1 status=404",
		"msg=request method=GET resource=r0 status=200",
		"msg=request method=GET path=/no-such-page status=404",
		`msg=request method=PUT resource="a\ntime=forged" token=43 status=400 trace_id=4bf92f3577b34da6a3ce929d0e0e4736`,
	}
	for i, line := range lines {
		stamp, rest, ok := strings.Cut(line, " ")
		require.True(t, ok, line)
		at, err := time.Parse(time.RFC3339Nano, strings.TrimPrefix(stamp, "time="))
		require.NoError(t, err, "line %d: %s", i, line)
		assert.Equal(t, time.UTC, at.Location(), "line %d", i)
		assert.Equal(t, want[i], rest, "line %d", i)
	}
}

// TestTheRequestLogKeepsTheAnswer: the wrapper changes nothing of what
// the handler answers.
func TestTheRequestLogKeepsTheAnswer(t *testing.T) {
	t.Parallel()
	var log lockedBuffer
	h := LogRequests(newHandler(t, NewMemory(), DefaultOptions()), &log)
	assert.Equal(t, http.StatusNoContent, put(h, "r0", "42", "v").Code)
	rec := get(h, "r0")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "v", rec.Body.String())
	assert.Equal(t, "42", rec.Header().Get(TokenHeader))
}
