package memory

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
)

// Unfenced ignores tokens: the last write wins. It is what a resource looks
// like when the only protection is the lease itself, and the article's step 4
// overwrites the newer result with the old one.
type Unfenced struct{ table }

// NewUnfenced returns a receiver that accepts every write.
func NewUnfenced() *Unfenced { return &Unfenced{} }

// Write stores value whatever its token.
func (u *Unfenced) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	u.put(resource, cell{value: value, token: token})
	return histories.Accepted, nil
}
