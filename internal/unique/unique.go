// Package unique names what one run creates on a shared server (tables,
// keys, lock prefixes), so that runs sharing the server never touch each
// other's and each run can remove exactly what it made. The SQL, Redis and
// S3 targets and the lease issuers on etcd, Redis and PostgreSQL share it.
package unique

import (
	"crypto/rand"
	"encoding/hex"
)

// Hex returns n random bytes as 2n lower-case hex digits. crypto/rand
// does not fail (since Go 1.24 it crashes the program rather than return
// an error), so neither does Hex.
func Hex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
