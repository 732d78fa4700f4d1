package targets

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// powerForm is 2^N with an optional +K or -K.
var powerForm = regexp.MustCompile(`^2\^([0-9]{1,2})(?:([+-])([0-9]{1,20}))?$`)

// ParseMaxToken reads the largest token a receiver stores, as a person
// writes it: a decimal from 1 to 2^64-1, or 2^N, 2^N-K, 2^N+K in the same
// range (a BIGINT column: 2^63-1). Empty is nothing declared (0). Its
// errors begin with the text, quoted.
func ParseMaxToken(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	bad := func(why string) error {
		return fmt.Errorf("%q: %s (want a decimal, 2^N, 2^N-K or 2^N+K from 1 to 2^64-1, e.g. 2^63-1)", s, why)
	}
	var v *big.Int
	if m := powerForm.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		v = new(big.Int).Lsh(big.NewInt(1), uint(n))
		if m[2] != "" {
			k, ok := new(big.Int).SetString(m[3], 10)
			if !ok {
				return 0, bad("not a number after " + m[2])
			}
			if m[2] == "-" {
				k.Neg(k)
			}
			v.Add(v, k)
		}
	} else {
		if s[0] < '0' || s[0] > '9' {
			return 0, bad("not a number")
		}
		var ok bool
		if v, ok = new(big.Int).SetString(s, 10); !ok {
			return 0, bad("not a number")
		}
	}
	if v.Sign() <= 0 || !v.IsUint64() {
		return 0, bad("out of range")
	}
	return v.Uint64(), nil
}
