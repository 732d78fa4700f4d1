package targets

import (
	"math/bits"
	"strconv"
)

// TokenName writes a token the way the boundaries it sits on are spoken
// of: "2^63-1" for 9223372036854775807, "2^53+1", "2^64-1"; a token not
// within 2 of a power of two from 2^16 up is written in decimal.
func TokenName(t uint64) string {
	for _, d := range []int64{0, 1, -1, 2, -2} {
		p := uint64(int64(t) - d) // t - d, wrapping at 2^64 for 2^64-1, 2^64-2
		var k int
		switch {
		case p == 0 && d < 0:
			k = 64 // t = 2^64 + d
		case p != 0 && p&(p-1) == 0:
			k = bits.TrailingZeros64(p)
		default:
			continue
		}
		if k < 16 {
			continue
		}
		name := "2^" + strconv.Itoa(k)
		switch {
		case d > 0:
			name += "+" + strconv.FormatInt(d, 10)
		case d < 0:
			name += strconv.FormatInt(d, 10)
		}
		return name
	}
	return strconv.FormatUint(t, 10)
}

// DomainName describes the domain whose largest token is max, for the
// lines that print it: "1 … 2^63-1 (9223372036854775807)".
func DomainName(max uint64) string {
	name := TokenName(max)
	if name == strconv.FormatUint(max, 10) {
		return "1 … " + name
	}
	return "1 … " + name + " (" + strconv.FormatUint(max, 10) + ")"
}

// Domain is the largest token of the domain a run or a battery may send
// to t: the smaller of what the user declared (0: nothing declared) and
// what t declares (MaxToken).
func Domain(t Target, declared uint64) uint64 {
	if declared == 0 {
		return MaxToken(t)
	}
	return min(declared, MaxToken(t))
}
