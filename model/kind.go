package model

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
