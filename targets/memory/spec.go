package memory

import (
	"fmt"

	"github.com/fencecheck/fencecheck/targets"
)

// Names lists the in-memory receivers, for help texts and errors.
var Names = []string{"fenced", "unfenced", "check-then-set", "accept-equal"}

// Open returns a fresh receiver by name: the part after memory:// in a
// target spec.
func Open(name string) (targets.Target, error) {
	switch name {
	case "fenced":
		return NewFenced(), nil
	case "unfenced":
		return NewUnfenced(), nil
	case "check-then-set":
		return NewCheckThenSet(), nil
	case "accept-equal":
		return NewAcceptEqual(), nil
	}
	return nil, fmt.Errorf("unknown memory target %q (want one of %v)", name, Names)
}
