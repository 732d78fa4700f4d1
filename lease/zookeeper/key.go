package zklease

import (
	"cmp"
	"encoding/hex"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// plainName is a resource that is a valid znode name as it is; it holds
// no dot, so it never collides with the encoded form (nor is "." or
// "..", which ZooKeeper refuses).
var plainName = regexp.MustCompile(`^[-_A-Za-z0-9]+$`)

// nodeName is the name of the resource's lock parent under the run's
// root: the resource when it is a plain name, else "h." and its bytes in
// hex.
func nodeName(resource string) string {
	if plainName.MatchString(resource) {
		return resource
	}
	return "h." + hex.EncodeToString([]byte(resource))
}

// lockPrefix ends the name of every lock node before its sequence:
// Curator's "lock-".
const lockPrefix = "lock-"

// sequenceDigits is how ZooKeeper writes a sequence node's counter: ten
// digits, zero-padded (%010d of a signed 32-bit counter, so that past
// 2^31-1 it writes a minus sign and the width grows to eleven).
const sequenceDigits = 10

// sequence is the counter ZooKeeper appended to a lock node's name, and
// whether the name ends in one.
func sequence(name string) (int32, bool) {
	i := strings.LastIndex(name, lockPrefix)
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(name[i+len(lockPrefix):], 10, 32)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}

// lowest returns the lock node among children that holds the lock, the
// one with the lowest sequence (Curator's rule: a protected node's name
// starts with its GUID, so names are ordered by their sequence alone),
// and "" when none is a lock node.
func lowest(children []string) string {
	var locks []string
	for _, c := range children {
		if _, ok := sequence(c); ok {
			locks = append(locks, c)
		}
	}
	if len(locks) == 0 {
		return ""
	}
	return slices.MinFunc(locks, func(a, b string) int {
		sa, _ := sequence(a)
		sb, _ := sequence(b)
		return cmp.Compare(sa, sb)
	})
}
