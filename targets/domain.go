package targets

import (
	"errors"
	"fmt"
	"math"
)

// MaxToken63 is the largest token a signed 64-bit column (SQL BIGINT,
// Java long, a Redis integer) stores: 2^63-1.
const MaxToken63 uint64 = math.MaxInt64

// TokenDomain is implemented by targets that know the largest token they
// store: a built-in SQL mode keeps tokens in a BIGINT, a Redis script
// compares them as Lua integers. A token above it is not a token the
// receiver was built for; writing one is a usage error, not evidence of a
// violation. A target that does not implement it stores every uint64
// (the wire protocol's range), unless the user declares less
// (--max-token).
type TokenDomain interface {
	// MaxToken returns the largest token the receiver stores.
	MaxToken() uint64
}

// MaxToken returns the largest token t stores: its TokenDomain, or
// math.MaxUint64.
func MaxToken(t Target) uint64 {
	if d, ok := t.(TokenDomain); ok {
		return d.MaxToken()
	}
	return math.MaxUint64
}

// ErrOutsideDomain is wrapped by the error of a write whose token is
// above the receiver's declared domain. Such a write was not sent.
var ErrOutsideDomain = errors.New("token outside the receiver's token domain")

// OutsideDomain returns the error for a write of token to a receiver
// whose largest token is max; it wraps both ErrOutsideDomain and
// ErrDefinitelyNotApplied, for the write was never sent.
func OutsideDomain(token, max uint64) error {
	return fmt.Errorf("token %d above the largest the receiver stores (%d): %w: %w", token, max, ErrOutsideDomain, ErrDefinitelyNotApplied)
}
