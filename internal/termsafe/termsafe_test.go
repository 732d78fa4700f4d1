package termsafe

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "status 503: overloaded", "status 503: overloaded"},
		{"quotes stay", `relation "x" does not exist`, `relation "x" does not exist`},
		{"letters and symbols", "résumé ✓ 日本", "résumé ✓ 日本"},
		{"replacement character itself", "a\ufffdb", "a\ufffdb"},
		{"CSI", "evil\x1b[2Jclear", `evil\x1b[2Jclear`},
		{"OSC with BEL", "\x1b]0;pwned\x07", `\x1b]0;pwned\x07`},
		{"newline and tab", "line\nbreak\ttab", `line\x0abreak\x09tab`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"C1 CSI", "a\u009bb", `a\x9bb`},
		{"invalid UTF-8", "bad \xff byte", `bad \xff byte`},
		{"truncated rune", "cut \xe2\x80", `cut \xe2\x80`},
		{"bidi override", "\u202e reversed", `\u202e reversed`},
		{"bidi embeddings and isolates", "\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"astral format character", "a\U000e0001b", `a\U000e0001b`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, String(tc.in))
		})
	}
}

// FuzzString: the output is valid UTF-8 with nothing a terminal acts on,
// and text with nothing to escape comes back unchanged.
func FuzzString(f *testing.F) {
	for _, s := range []string{"report", "\x1b]0;pwned\x07", "\u202e", "\xff", "a\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := String(s)
		if !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q: invalid UTF-8", s, out)
		}
		if i := strings.IndexFunc(out, func(r rune) bool { return !unicode.IsPrint(r) }); i >= 0 {
			t.Fatalf("String(%q) = %q: unprintable at byte %d", s, out, i)
		}
		if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 && out != s {
			t.Fatalf("String(%q) = %q: changed printable text", s, out)
		}
	})
}
