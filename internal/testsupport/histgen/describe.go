package histgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
)

// Describe renders ops one a line, with every field a checker reads, for
// the message of a failed test.
func Describe(ops []histories.Operation) string {
	var b strings.Builder
	for i := range ops {
		o := &ops[i]
		ret := strconv.FormatInt(o.Return, 10)
		if o.Return == histories.Infinity {
			ret = "∞"
		}
		fmt.Fprintf(&b, "  #%d p%d %s [%d,%s] %s", o.ID, o.Process, o.Resource, o.Call, ret, o.F)
		if o.IsWrite() {
			fmt.Fprintf(&b, "(%d, %q) → %s\n", o.Token, o.Value, o.Status)
			continue
		}
		fmt.Fprintf(&b, " → %s value=%q/%v token=%d/%v\n", o.Status, o.Value, o.HasValue, o.Token, o.HasToken)
	}
	return b.String()
}

// JudgeAcceptEqual picks whether a history generated with cfg is judged
// under accept-equal rather than strict: seven times in eight for a
// receiver that accepts repeats of the current token (always, or
// sometimes), half the time for a strict one, which must hold under
// accept-equal too.
func JudgeAcceptEqual(r *rand.Rand, cfg Config) bool {
	return cfg.EqualAccepted == 0 && r.IntN(2) == 0 || cfg.EqualAccepted > 0 && r.IntN(8) != 0
}
