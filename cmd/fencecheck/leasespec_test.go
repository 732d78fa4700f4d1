package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseLeases: a bad --leases spec is a usage error (exit 3, with the
// usage hint) that names the flag and keeps the password out; the spec
// forms themselves are tested in lease/spec.
func TestParseLeases(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"", "bogus://", "etcd://a", "redis://u:secret@127.0.0.1:6379/notadb"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			_, err := parseLeases(spec)
			var ue *usageError
			require.True(t, errors.As(err, &ue), "%v is a usage error", err)
			assert.Regexp(t, `^--leases: `, err.Error())
			assert.NotContains(t, err.Error(), "secret")
		})
	}
	iss, err := parseLeases("local")
	require.NoError(t, err)
	assert.Nil(t, iss)
}
