package s3target

import (
	"fmt"
	"strconv"
	"strings"
)

// The object layout of every mode: the token in 20 decimal digits,
// zero-padded, a newline, then the value as it was written.
//
//	00000000000000000042\nthe value
//
// The token is in the content, not in user metadata, so that a single
// PUT writes both and the ETag (the content's MD5) changes with the
// token: two writes of the same value with different tokens never share
// an ETag. An epoch key ends in the same 20 digits:
// <prefix><resource>/00000000000000000042, whose lexicographic order,
// the order S3 lists keys in, is the tokens' numeric order.
const tokenDigits = 20

// formatToken writes a token as the layout does.
func formatToken(token uint64) string { return fmt.Sprintf("%0*d", tokenDigits, token) }

// encode is the content of an object that holds value under token.
func encode(token uint64, value string) string { return formatToken(token) + "\n" + value }

// decode reads an object's content.
func decode(content string) (token uint64, value string, err error) {
	tok, value, ok := strings.Cut(content, "\n")
	if !ok {
		return 0, "", fmt.Errorf("the object does not start with a token line (%d bytes, no newline)", len(content))
	}
	token, err = parseToken(tok)
	return token, value, err
}

// parseToken reads the 20 digits of the layout.
func parseToken(s string) (uint64, error) {
	if len(s) != tokenDigits || strings.TrimLeft(s, "0123456789") != "" {
		return 0, fmt.Errorf("the token %q is not %d decimal digits", clip(s), tokenDigits)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("the token %q is above 2^64-1", s)
	}
	return n, nil
}

// epochKey is the key of token's object under a resource's prefix.
func epochKey(dir string, token uint64) string { return dir + formatToken(token) }

// clip bounds a quoted piece of an object in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
