package natstarget

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
)

// The layout of the bucket: one key per resource, whose value is the
// token of the write that stored it, in decimal zero-padded to tokenWidth
// digits, a space, and the value. The token is compared in Go, as a
// uint64, never by the server; the padding keeps every entry the same
// shape for whoever reads the bucket with the nats CLI.
const tokenWidth = 20 // the digits of 2^64-1

// plainKey is a resource that is a valid KV key as it is. It holds no
// dot, so it never collides with the encoded form.
var plainKey = regexp.MustCompile(`^[-_A-Za-z0-9]+$`)

// keyOf is the resource's key: the resource itself when it is a plain
// key, else "h." and its bytes in hex (KV keys allow only
// [-/_=.A-Za-z0-9], and a dot-separated token is a subject level).
func keyOf(resource string) string {
	if plainKey.MatchString(resource) {
		return resource
	}
	return "h." + hex.EncodeToString([]byte(resource))
}

// encode is the stored form of a token and a value.
func encode(token uint64, value string) []byte {
	return fmt.Appendf(nil, "%0*d %s", tokenWidth, token, value)
}

// decode reads an entry's stored form.
func decode(b []byte) (token uint64, value string, err error) {
	if len(b) < tokenWidth+1 || b[tokenWidth] != ' ' {
		return 0, "", fmt.Errorf("the stored entry %q is not a %d-digit token, a space and a value", clip(b), tokenWidth)
	}
	for _, c := range b[:tokenWidth] {
		if c < '0' || c > '9' {
			return 0, "", fmt.Errorf("the stored entry %q does not start with a %d-digit token", clip(b), tokenWidth)
		}
	}
	token, err = strconv.ParseUint(string(b[:tokenWidth]), 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("the stored token %q is not a token: %w", b[:tokenWidth], err)
	}
	return token, string(b[tokenWidth+1:]), nil
}

// clip bounds what an error quotes of an entry.
func clip(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}
