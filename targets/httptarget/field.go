package httptarget

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// document is a decoded JSON response body. Numbers stay json.Number so
// that tokens above 2^53 keep every digit.
type document struct{ root any }

func parseDocument(body []byte) (document, error) {
	v, err := decodeJSON(body)
	if err != nil {
		return document{}, fmt.Errorf("response body is %w", err)
	}
	return document{v}, nil
}

// field returns the value at a dotted path; ok is false when some step is
// missing (which compares as null).
func (d document) field(path string) (any, bool) {
	cur := d.root
	for _, key := range strings.Split(path, ".") {
		m, isObject := cur.(map[string]any)
		if !isObject {
			return nil, false
		}
		if cur, isObject = m[key]; !isObject {
			return nil, false
		}
	}
	return cur, true
}

// fieldString returns a string field (or the text of a number).
func (d document) fieldString(path string) (string, error) {
	v, ok := d.field(path)
	switch v := v.(type) {
	case string:
		return v, nil
	case json.Number:
		return v.String(), nil
	case nil:
		if !ok {
			return "", fmt.Errorf("field %q missing", path)
		}
		return "", fmt.Errorf("field %q is null", path)
	}
	return "", fmt.Errorf("field %q is not a string", path)
}

// parseToken parses a decimal uint64 token exactly: no sign, no spaces,
// no exponent, no fraction.
func parseToken(s string) (uint64, error) {
	if s == "" || s[0] == '+' {
		return 0, fmt.Errorf("token %q is not a decimal unsigned integer", s)
	}
	t, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("token %q is not a decimal unsigned 64-bit integer", s)
	}
	return t, nil
}
