package model

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseKind reads the models' names and refuses others, naming the
// ones it takes.
func TestParseKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want Kind
	}{{"fenced", KindFenced}, {"register", KindRegister}} {
		k, err := ParseKind(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, k, tc.in)
	}
	_, err := ParseKind("fenced-register")
	assert.EqualError(t, err, `unknown model "fenced-register" (want fenced or register)`)
}
