package histories

import (
	"strings"
	"unicode"
)

// ErrorSummary keeps the first distinct errors a history's operations
// ended with, and how often each kind occurred. Two errors are of one
// kind when they differ only in numbers (a token, a resource index, a
// status code is kept in the example): "write token 41 to r0: status 503"
// and "write token 42 to r1: status 503" are one kind, so a run whose
// every write failed the same way reports one error, not thousands.
type ErrorSummary struct {
	Kinds []ErrorKind `json:"kinds,omitempty"`
	// Other counts errors of kinds beyond the first maxErrorKinds.
	Other int `json:"other,omitempty"`
}

// ErrorKind is one kind of error, with its first occurrence.
type ErrorKind struct {
	Example string `json:"example"` // the first error of the kind, as the target gave it
	F       string `json:"f"`       // the operation it ended: write or read
	Count   int    `json:"count"`
	key     string
}

// maxErrorKinds bounds the kinds a summary keeps: they are for a person
// to read, and the history holds every error.
const maxErrorKinds = 8

func (s *ErrorSummary) add(f, text string) {
	key := errorKey(f, text)
	for i := range s.Kinds {
		if s.Kinds[i].key == key {
			s.Kinds[i].Count++
			return
		}
	}
	if len(s.Kinds) == maxErrorKinds {
		s.Other++
		return
	}
	s.Kinds = append(s.Kinds, ErrorKind{Example: text, F: f, Count: 1, key: key})
}

// errorKey is an error's text with every run of digits replaced by one #.
func errorKey(f, text string) string {
	var b strings.Builder
	b.Grow(len(f) + 1 + len(text))
	b.WriteString(f)
	b.WriteByte(' ')
	digits := false
	for _, r := range text {
		if unicode.IsDigit(r) {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteRune(r)
	}
	return b.String()
}
