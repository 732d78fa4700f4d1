package httptarget

import (
	"bufio"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseHeader(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line, name, value, err string
	}{
		{"Authorization: Bearer abc", "Authorization", "Bearer abc", ""},
		{"x-api-key:k", "X-Api-Key", "k", ""},
		{"X-Empty:", "X-Empty", "", ""},
		{"X-Colon: a:b: c ", "X-Colon", "a:b: c", ""},
		{"Authorization Bearer s3cret", "", "", "no colon"},
		{": s3cret", "", "", "empty header name"},
		{"X Key: s3cret", "", "", `header name "X Key"`},
		{" X: s3cret", "", "", `header name " X"`},
		{"X-Key: s3cret\r\nX-Evil: 1", "", "", "control character"},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			t.Parallel()
			name, value, err := ParseHeader(tc.line)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				assert.NotContains(t, err.Error(), "s3cret")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.name, name)
			assert.Equal(t, tc.value, value)
		})
	}
}

// FuzzParseHeader: an accepted header travels as exactly that one
// header (no value can smuggle in another), and a refusal does not quote
// the value: its message is the same for any value of the same validity.
func FuzzParseHeader(f *testing.F) {
	for _, s := range []string{"Authorization: Bearer x", "X-A:1", "X A: 1", ": v", "nocolon", "X: a\r\nY: b", "X:\x7f", "X: \t v \t", "\xff: v", " "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, value, err := ParseHeader(line)
		if err != nil {
			n, v, ok := strings.Cut(line, ":")
			if !ok {
				return
			}
			other := n + ":" + strings.Map(func(r rune) rune {
				if r < ' ' || r == 0x7f {
					return r
				}
				return 'a'
			}, v)
			if _, _, err2 := ParseHeader(other); err2 != nil && err2.Error() != err.Error() {
				t.Fatalf("%q: the error depends on the value: %q vs %q", line, err, err2)
			}
			return
		}
		raw := "GET / HTTP/1.1\r\nHost: h\r\n" + name + ": " + value + "\r\n\r\n"
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			t.Fatalf("%q accepted, but the request does not parse: %v", line, err)
		}
		if len(req.Header) != 1 || len(req.Header.Values(name)) != 1 || req.Header.Get(name) != value {
			t.Fatalf("%q accepted, but travels as %q", line, req.Header)
		}
	})
}
