package model

import (
	"fmt"
	"math"
)

// Policy says what a fenced resource may answer to a write whose token
// equals the highest it has accepted.
//
// The state of a resource is the highest token it has accepted (0 while it
// was never written) and the value of that write. A policy is two
// relations on that highest token h and a write's token t: when the write
// may be accepted (MayAccept) and when it may be rejected (MayReject). A
// rejection needs the same justification under both policies, t ≤ h: a
// write with a token of t or above took effect before it, or t is 0. The
// policies differ only in acceptance, and only at t = h, where strict
// forbids it and accept-equal allows it, so at t = h an accept-equal
// resource may answer either way. So every answer legal under strict is
// legal under accept-equal, step by step: the policies nest, and a correct
// strict receiver holds under accept-equal too.
type Policy uint8

const (
	// Strict accepts a write iff its token is greater than the highest
	// accepted so far, and rejects it otherwise: it is deterministic. A
	// repeat of the current token is rejected, which makes duplicates
	// visible but also refuses a legitimate second write by the same
	// owner. Token 0 is never accepted.
	Strict Policy = iota
	// AcceptEqual allows a resource to accept a token greater than or
	// equal to the highest accepted, and to reject one at or below it. A
	// repeat of the current token may therefore be accepted (the current
	// owner writes several times) or rejected (a strict receiver is
	// correct here too), and a receiver may mix both answers. A resource
	// that accepts repeats cannot tell a second write from a duplicate of
	// the first: duplicate suppression is a separate concern.
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

// MayAccept reports whether a resource whose highest accepted token is
// highest may accept a write carrying token: token > highest under
// strict, token ≥ highest under accept-equal. A resource that was never
// written has highest 0, so only accept-equal may accept token 0 there. A
// write with unknown outcome may have taken effect exactly when it may
// have been accepted.
func (p Policy) MayAccept(highest, token uint64) bool {
	if p == AcceptEqual {
		return token >= highest
	}
	return token > highest
}

// MayReject reports whether a resource whose highest accepted token is
// highest may reject a write carrying token: token ≤ highest, under
// either policy. It is a method of Policy all the same, so that every
// call site says which relation it means; that it does not depend on the
// policy is what makes the policies nest. A rejection of token 0 is
// always legal.
func (p Policy) MayReject(highest, token uint64) bool { return token <= highest }

// LowestBar returns the lowest accepted token after which a write with
// token may no longer be accepted (the lowest h with !MayAccept(h,
// token)): token under strict, token+1 under accept-equal; false when
// there is none. As the highest accepted token never decreases and
// MayAccept is antitone in it, the accepted tokens that bar token are
// exactly those at or above the lowest bar: the fencing cap finds them by
// binary search.
func (p Policy) LowestBar(token uint64) (uint64, bool) {
	if p == AcceptEqual {
		if token == math.MaxUint64 {
			return 0, false
		}
		return token + 1, true
	}
	return token, true
}
