package natstarget

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzLayout: every token and value read back as written; no stored
// entry makes decode panic; every resource maps to a valid KV key, and
// two resources never to the same one.
func FuzzLayout(f *testing.F) {
	f.Add(uint64(0), "", "r0", []byte("00000000000000000042 a"))
	f.Add(uint64(1<<64-1), "a b", "a.b", []byte("18446744073709551616 x"))
	f.Add(uint64(7), "ü", "h.61", []byte("x"))
	valid := regexp.MustCompile(`^[-/_=.A-Za-z0-9]+$`)
	f.Fuzz(func(t *testing.T, token uint64, value, resource string, stored []byte) {
		tok, v, err := decode(encode(token, value))
		require.NoError(t, err)
		assert.Equal(t, token, tok)
		assert.Equal(t, value, v)
		_, _, _ = decode(stored)
		if resource != "" {
			k := keyOf(resource)
			assert.Regexp(t, valid, k)
			other := resource + "x"
			assert.NotEqual(t, k, keyOf(other))
		}
	})
}
