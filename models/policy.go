// Package models holds what a correct receiver is allowed to answer: the
// fenced-register model with its two policies, the plain register that
// fencing improves on, their porcupine adapters, and the explanation of a
// violation in terms a person can act on.
package models

import (
	"fmt"
	"math"
)

// Policy says how a fenced resource treats a token equal to the highest it
// has accepted.
type Policy uint8

const (
	// Strict accepts a write only if its token is greater than the highest
	// accepted so far. A repeat of the current token is rejected, which
	// makes duplicates visible but also refuses a legitimate second write
	// by the same owner.
	Strict Policy = iota
	// AcceptEqual accepts a token greater than or equal to the highest
	// accepted. The current owner can write several times, but the
	// resource cannot tell a second write from a duplicate of the first:
	// duplicate suppression is a separate concern.
	AcceptEqual
)

// String returns the name used on the command line.
func (p Policy) String() string {
	if p == AcceptEqual {
		return "accept-equal"
	}
	return "strict"
}

// ParsePolicy parses "strict" or "accept-equal".
func ParsePolicy(s string) (Policy, error) {
	switch s {
	case "strict":
		return Strict, nil
	case "accept-equal":
		return AcceptEqual, nil
	}
	return Strict, fmt.Errorf("unknown policy %q (want strict or accept-equal)", s)
}

// Accepts reports whether a resource whose highest accepted token is highest
// must accept a write carrying token. A resource that was never written has
// highest 0.
func (p Policy) Accepts(highest, token uint64) bool {
	if p == AcceptEqual {
		return token >= highest
	}
	return token > highest
}

// Blocks reports whether, once token accepted has been accepted, a write
// with token must be rejected from then on.
func (p Policy) Blocks(accepted, token uint64) bool { return !p.Accepts(accepted, token) }

// lowestBlocker returns the lowest accepted token that blocks token (see
// Blocks), and false when none does. Blocks is monotone in the accepted
// token, so the accepted tokens that block token are exactly those at or
// above the lowest blocker: the fencing cap finds them by binary search.
func (p Policy) lowestBlocker(token uint64) (uint64, bool) {
	if p == AcceptEqual {
		if token == math.MaxUint64 {
			return 0, false
		}
		return token + 1, true
	}
	return token, true
}
