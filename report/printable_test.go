package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrintable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"status 503: overloaded", "status 503: overloaded"},
		{`relation "x" does not exist`, `relation "x" does not exist`},
		{"résumé ✓", "résumé ✓"},
		{"evil\x1b[2Jclear", `evil\x1b[2Jclear`},
		{"line\nbreak\ttab", `line\x0abreak\x09tab`},
		{"bad \xff byte", `bad \xff byte`},
		{"\u202e reversed", `\u202e reversed`},
	} {
		assert.Equal(t, tc.want, Printable(tc.in), tc.in)
	}
}
