package receiver

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenRequestLog: the request log goes to stderr, to a file it
// appends to, or nowhere; an empty destination is refused.
func TestOpenRequestLog(t *testing.T) {
	t.Parallel()
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	serve := func(h http.Handler) {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/resources/r0", nil))
	}
	file := filepath.Join(t.TempDir(), "requests.log") // not validated: a request log, not a history
	require.NoError(t, os.WriteFile(file, []byte("earlier\n"), 0o600))
	for _, tc := range []struct {
		to         string
		stderr     bool
		fileAppend bool
	}{{"stderr", true, false}, {"off", false, false}, {file, false, true}} {
		t.Run(tc.to, func(t *testing.T) {
			var stderr bytes.Buffer
			h, closeLog, err := OpenRequestLog(ok, tc.to, &stderr)
			require.NoError(t, err)
			serve(h)
			closeLog()
			assert.Equal(t, tc.stderr, bytes.Contains(stderr.Bytes(), []byte("msg=request method=GET resource=r0 status=204")), stderr.String())
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			if tc.fileAppend {
				assert.Regexp(t, `^earlier\ntime=\S+ msg=request method=GET resource=r0 status=204\n$`, string(data))
			}
		})
	}
	_, _, err := OpenRequestLog(ok, "", &bytes.Buffer{})
	assert.True(t, errors.Is(err, ErrRequestLogName), "%v", err)
}
