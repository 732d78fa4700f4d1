package receiver

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Errors for requests the receiver refuses with 400.
var (
	errNoToken  = errors.New("receiver: missing Fencing-Token header")
	errBadToken = errors.New("receiver: malformed Fencing-Token")
	errResource = errors.New("receiver: bad resource name")
)

// maxResource bounds a resource name, in bytes.
const maxResource = 256

// parseToken accepts exactly one canonical decimal in 1..2^64-1: no sign,
// no spaces, no leading zeros, no exponent. Anything else is malformed, so
// that "010", "10" and "1e1" can never be three spellings of one token.
func parseToken(values []string) (uint64, error) {
	if len(values) == 0 {
		return 0, errNoToken
	}
	if len(values) > 1 {
		return 0, fmt.Errorf("%w: %d headers, want one", errBadToken, len(values))
	}
	s := values[0]
	if s == "" || len(s) > 20 || s[0] < '1' || s[0] > '9' {
		return 0, fmt.Errorf("%w: %q is not a decimal integer from 1 to 18446744073709551615", errBadToken, s)
	}
	t, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: %q is not a decimal integer from 1 to 18446744073709551615", errBadToken, s)
	}
	return t, nil
}

// checkResource accepts names of 1 to 256 bytes of valid UTF-8 without
// control characters.
func checkResource(name string) error {
	if name == "" || len(name) > maxResource || !utf8.ValidString(name) {
		return fmt.Errorf("%w: want 1 to %d bytes of UTF-8", errResource, maxResource)
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%w: control character in %q", errResource, name)
		}
	}
	return nil
}
