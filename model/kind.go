package model

import "fmt"

// Kind selects the model a history is judged against.
type Kind uint8

// Models.
const (
	KindFenced   Kind = iota // the fenced register (the default)
	KindRegister             // the plain register, last writer wins
)

// String names the model.
func (k Kind) String() string {
	if k == KindRegister {
		return "register"
	}
	return "fenced-register"
}

// ParseKind parses a model's name as a command line gives it: fenced
// (the fenced register) or register (the plain register).
func ParseKind(s string) (Kind, error) {
	switch s {
	case "fenced":
		return KindFenced, nil
	case "register":
		return KindRegister, nil
	}
	return KindFenced, fmt.Errorf("unknown model %q (want fenced or register)", s)
}
