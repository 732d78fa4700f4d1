package httptarget

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ParseHeader splits a header written "Name: value", as curl -H takes it:
// the name up to the first colon, checked by CheckHeader, and the value
// after it without surrounding blanks. Its errors never quote the value.
func ParseHeader(line string) (name, value string, err error) {
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return "", "", errors.New(`want "Name: value", got no colon (the value is not shown)`)
	}
	value = strings.Trim(value, " \t")
	if err := CheckHeader(name, value); err != nil {
		return "", "", err
	}
	return http.CanonicalHeaderKey(name), value, nil
}

// CheckHeader reports whether name and value can be sent as a header:
// name a non-empty RFC 9110 token, value without control characters
// other than tab (a CR or LF would end the header and start another).
// Its errors quote the name, never the value, which may be a secret.
func CheckHeader(name, value string) error {
	if name == "" {
		return errors.New("empty header name")
	}
	if i := strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }); i >= 0 {
		return fmt.Errorf("header name %q: %q is not allowed in a header name", name, name[i:i+1])
	}
	if strings.IndexFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
		return fmt.Errorf("header %s: the value holds a control character", name)
	}
	return nil
}

// isTokenChar is RFC 9110's tchar: "!#$%&'*+-.^_`|~", digits and letters.
func isTokenChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
