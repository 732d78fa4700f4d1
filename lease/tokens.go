package lease

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Tokens is the sequence of tokens the run's own lease service (Local)
// grants on each resource. The zero Tokens is Dense: 1, 2, 3, …, which
// is what a real issuer's counter does, but it never reaches the values
// where receivers go wrong by their representation of a token: a receiver
// that parses tokens as float64, as 32-bit or signed 64-bit integers, is
// correct below 2^31, and a dense run stays there. Sparse makes the
// sequence jump across those values; From starts it at a given token.
//
// Every sequence is strictly increasing per resource, so the issuer's
// invariant (each grant above the last) holds whatever the sequence.
type Tokens struct {
	kind tokensKind
	from uint64
}

type tokensKind uint8

const (
	dense tokensKind = iota
	sparse
	from
)

// Dense returns the default sequence: each grant one above the last. It
// is Tokens' zero value.
func Dense() Tokens { return Tokens{} }

// Sparse returns the sequence that counts up from 1 for SparseStretch/2
// grants, then jumps to SparseStretch/2 tokens below each of
// SparseBoundaries in turn (those inside the receiver's domain) and
// counts across it, and after the last counts up from there: 1, 2, 3, 7,
// 8, 9, 10, 11, 12, 97, …, 2^63+2, 2^63+3, ….
func Sparse() Tokens { return Tokens{kind: sparse} }

// From returns the sequence that starts at n (at least 1) and counts up.
func From(n uint64) Tokens { return Tokens{kind: from, from: max(n, 1)} }

// SparseBoundaries returns where a receiver's representation of a token
// breaks: a string comparison at each new digit ("10" < "9"), signed and
// unsigned 32-bit integers wrap at 2^31 and 2^32, float64 stops being
// exact above 2^53 (2^53+1 is 2^53), a signed 64-bit integer wraps at
// 2^63.
func SparseBoundaries() []uint64 { return []uint64{10, 100, 1000, 1 << 31, 1 << 32, 1 << 53, 1 << 63} }

// SparseStretch is how many consecutive tokens a sparse sequence grants
// around each boundary: half below it, half from it on. It is small, so
// that a short run reaches the last boundary (after about 45 grants on a
// resource); a defect of representation goes on showing above its
// boundary, where the sequence then stays (a float64 receiver confuses
// most consecutive tokens above 2^63).
const SparseStretch = 6

// ErrTokensExhausted is returned when a resource's sequence has no token
// left inside the receiver's domain.
var ErrTokensExhausted = errors.New("lease: no token left inside the receiver's token domain")

// ParseTokens parses "dense", "sparse" or "from:N" (N a decimal from 1 to
// 2^64-1).
func ParseTokens(s string) (Tokens, error) {
	switch {
	case s == "dense":
		return Dense(), nil
	case s == "sparse":
		return Sparse(), nil
	case strings.HasPrefix(s, "from:"):
		n, err := strconv.ParseUint(strings.TrimPrefix(s, "from:"), 10, 64)
		if err != nil || n == 0 {
			return Dense(), fmt.Errorf("%q: want from:N with N a decimal from 1 to %d", s, uint64(math.MaxUint64))
		}
		return From(n), nil
	}
	return Dense(), fmt.Errorf("%q: want dense, sparse or from:N", s)
}

// String is the sequence as ParseTokens reads it.
func (t Tokens) String() string {
	switch t.kind {
	case sparse:
		return "sparse"
	case from:
		return "from:" + strconv.FormatUint(t.from, 10)
	}
	return "dense"
}

// IsDense reports whether t is the default sequence.
func (t Tokens) IsDense() bool { return t.kind == dense }

// Next returns the token to grant after last (0 when the resource has had
// none) in a domain whose largest token is maxToken, and false when no
// token above last is left in it.
func (t Tokens) Next(last, maxToken uint64) (uint64, bool) {
	if last >= maxToken {
		return 0, false
	}
	next := last + 1
	switch t.kind {
	case from:
		next = max(next, t.from)
	case sparse:
		next = sparseNext(next, maxToken)
	}
	if next > maxToken {
		return 0, false
	}
	return next, true
}

// sparseNext is next, or the start of the next stretch when next lies
// between two stretches.
func sparseNext(next, maxToken uint64) uint64 {
	if next <= SparseStretch/2 {
		return next // the start: 1 … SparseStretch/2
	}
	for _, s := range sparseStretches(maxToken) {
		switch {
		case next < s[0]:
			return s[0]
		case next < s[1]:
			return next
		}
	}
	return next // past the last boundary: count up
}

// sparseStretches are the [start, end) ranges of tokens around each
// boundary whose whole stretch lies inside the domain.
func sparseStretches(maxToken uint64) [][2]uint64 {
	var out [][2]uint64
	for _, b := range SparseBoundaries() {
		if maxToken < SparseStretch || b > maxToken-(SparseStretch/2-1) {
			break // the stretch would leave the domain
		}
		out = append(out, [2]uint64{b - SparseStretch/2, b + SparseStretch/2})
	}
	return out
}

// Crossed lists the boundaries a sparse sequence crosses inside a domain
// whose largest token is maxToken; nil for other sequences.
func (t Tokens) Crossed(maxToken uint64) []uint64 {
	if t.kind != sparse {
		return nil
	}
	var out []uint64
	for _, s := range sparseStretches(maxToken) {
		out = append(out, s[0]+SparseStretch/2)
	}
	return out
}
