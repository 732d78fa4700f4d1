package memory

import (
	"fmt"

	"github.com/fencecheck/fencecheck/targets"
)

// Names lists the in-memory receivers, for help texts and errors.
func Names() []string {
	return []string{"fenced", "unfenced", "check-then-set", "accept-equal", "check-then-set-rare", "lost-write-rare", "uint32-tokens", "one-store"}
}

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
	case "check-then-set-rare":
		return NewCheckThenSetRare(), nil
	case "lost-write-rare":
		return NewLostWriteRare(), nil
	case "uint32-tokens":
		return NewUint32Tokens(), nil
	case "one-store":
		return NewOneStore(), nil
	}
	return nil, fmt.Errorf("unknown memory target %q (want one of %v)", name, Names())
}

// Maker returns a constructor of fresh receivers of the name Open takes,
// each empty, or Open's error for a name it does not know.
func Maker(name string) (func() targets.Target, error) {
	if _, err := Open(name); err != nil {
		return nil, err
	}
	return func() targets.Target {
		t, _ := Open(name)
		return t
	}, nil
}
