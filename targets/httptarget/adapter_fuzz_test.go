package httptarget

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fencecheck/fencecheck/histories"
)

// FuzzAdapter: loading any bytes as an adapter never panics; an adapter
// that loads maps any answer without panicking, to accepted, rejected or
// an error (unknown), and means the same after a round trip through JSON.
func FuzzAdapter(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "adapters", "*.json"))
	require.NoError(f, err)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data, 200, "stale", []byte(`{"ok": true, "error": "stale token 41 (current 42)", "item": {"value": "v", "token": "42"}}`))
	}
	f.Add([]byte(`{}`), 409, "", []byte(""))
	f.Add([]byte(`{"write": {"outcomes": [{"match": {"from": "header:X-R", "regex": "^st(a|e)+le$"}, "outcome": "rejected"}, {"status": [200], "outcome": "accepted"}]}}`), 200, "stale", []byte("x"))
	f.Add([]byte(`{"write": {"outcomes": [{"match": {"from": "field:a.b", "equals": {"c": [1, null]}}, "outcome": "accepted"}]}, "read": {"not_found": [{"match": {"from": "body", "prefix": ""}}]}}`), 200, "", []byte(`{"a": {"b": {"c": [1, null]}}}`))
	f.Add([]byte(`{"write": {"outcomes": [{"match": {"from": "status", "equals": 200}, "outcome": "unknown"}]}}`), 200, "", []byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte, status int, header string, body []byte) {
		a, err := ParseAdapter(data)
		if err != nil {
			return
		}
		c, err := a.compile()
		require.NoError(t, err, "ParseAdapter accepted what compile refuses")
		r := &response{status: status, header: http.Header{"X-R": {header}, TokenHeader: {header}}, body: body}
		out, outErr := c.outcome(r)
		if outErr == nil {
			assert.Contains(t, []histories.Outcome{histories.Accepted, histories.Rejected}, out)
		}
		_, _ = c.reading(r)

		again, err := json.Marshal(a)
		require.NoError(t, err)
		b, err := ParseAdapter(again)
		require.NoError(t, err, "%s", again)
		cb, err := b.compile()
		require.NoError(t, err)
		out2, err2 := cb.outcome(r)
		assert.Equal(t, out, out2)
		assert.Equal(t, outErr == nil, err2 == nil)
	})
}
