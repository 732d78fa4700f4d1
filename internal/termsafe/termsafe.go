// Package termsafe makes text that came from outside (a history's
// resource names and values, a receiver's error body) safe to print on a
// terminal: every character a terminal would act on instead of showing it
// is written as an escape. It is the one place where that rule lives;
// every text output that shows such a name goes through String.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// String returns s unchanged when a terminal would show every character
// of it as it is, and otherwise with each other character written as an
// escape: the C0 and C1 controls, ESC and DEL (so no escape sequence can
// clear the screen or retitle the window), the Unicode format characters
// such as the bidirectional overrides and isolates U+202A–U+202E and
// U+2066–U+2069 (so no name reads backwards), line and paragraph
// separators, and each byte of invalid UTF-8. Characters up to U+00FF are
// written \xHH, the others \uHHHH, as strconv.Quote writes them; no quotes
// are added, so a plain name prints as it is.
func String(s string) string {
	if strings.IndexFunc(s, unsafe) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], string(utf8.RuneError)):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafe(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	return b.String()
}

// unsafe reports whether a terminal might act on r rather than show it:
// anything unicode.IsPrint refuses (controls, format characters such as
// the bidi controls, separators other than the ASCII space).
func unsafe(r rune) bool { return !unicode.IsPrint(r) }
