package receiver

import "context"

// Rule is the comparison a store makes before it applies a write.
type Rule uint8

// Rules. Greater is the strict fencing rule; GreaterOrEqual also accepts a
// repeat of the current token; Always ignores tokens.
const (
	Greater Rule = iota
	GreaterOrEqual
	Always
)

// Cell is what a store keeps per resource: the value and the token of the
// write that produced it (the highest accepted, for a correct receiver).
type Cell struct {
	Value string
	Token uint64
}

// Store keeps the resources. CompareAndPut is the one step a correct
// receiver needs: the comparison and the mutation together, so that no
// other write can come between them.
type Store interface {
	// CompareAndPut applies c if rule accepts c.Token against the stored
	// token (0 when never written), as one atomic step, and returns
	// whether it did and the token stored afterwards.
	CompareAndPut(ctx context.Context, resource string, c Cell, rule Rule) (applied bool, current uint64, err error)
	// Get returns the stored cell; found is false if never written.
	Get(ctx context.Context, resource string) (c Cell, found bool, err error)
	// Put stores c unconditionally (for the bug modes that compare
	// elsewhere).
	Put(ctx context.Context, resource string, c Cell) error
	Close() error
}

func (r Rule) accepts(stored, token uint64) bool {
	switch r {
	case GreaterOrEqual:
		return token >= stored
	case Always:
		return true
	}
	return token > stored
}
