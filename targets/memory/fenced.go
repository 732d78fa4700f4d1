package memory

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
)

// Fenced is the correct receiver: the token comparison and the mutation
// happen under one lock, as one indivisible step. With acceptEqual it also
// accepts a repeat of the current token, as the article's model does.
type Fenced struct {
	table
	acceptEqual bool
}

// NewFenced returns a receiver that accepts only tokens above the highest
// accepted (the strict policy). It is correct under accept-equal too,
// which allows a repeat of the current token to be rejected.
func NewFenced() *Fenced { return &Fenced{} }

// NewAcceptEqual returns a receiver that also accepts a token equal to the
// highest accepted. It is correct under the accept-equal policy and a
// violation under strict once a duplicate arrives.
func NewAcceptEqual() *Fenced { return &Fenced{acceptEqual: true} }

// Write applies value if token is newer than every accepted token.
func (f *Fenced) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return f.writeIf(resource, cell{value: value, token: token}, func(current uint64) bool {
		return token > current || (token == current && f.acceptEqual)
	}), nil
}
