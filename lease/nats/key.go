package natslease

import (
	"encoding/hex"
	"regexp"
)

// plainKey is a resource that is a valid KV key as it is; it holds no
// dot, so it never collides with the encoded form.
var plainKey = regexp.MustCompile(`^[-_A-Za-z0-9]+$`)

// key is the resource's lease key: the resource when it is a plain key,
// else "h." and its bytes in hex.
func key(resource string) string {
	if plainKey.MatchString(resource) {
		return resource
	}
	return "h." + hex.EncodeToString([]byte(resource))
}
