package verify

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestShortEscapesTheTargetsWords: a target's error text reaches the
// table escaped for a terminal, and cut at a whole character.
func TestShortEscapesTheTargetsWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, msg, want string }{
		{"plain", "status 503: overloaded", "status 503: overloaded"},
		{"escape sequences", "body \x1b]0;pwned\x07\x1b[2J\u202e", `body \x1b]0;pwned\x07\x1b[2J\u202e`},
		{"cut inside a character", strings.Repeat("a", 79) + "é and more", strings.Repeat("a", 79) + "…"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, short(errors.New(tc.msg)))
		})
	}
}
