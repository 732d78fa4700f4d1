package memory

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
)

// Uint32Tokens compares tokens by their low 32 bits, as a receiver does
// that casts them to uint32 for the comparison (or keeps the highest in a
// 32-bit column) while storing them whole: correct for every token below
// 2^32, wrong once tokens cross it, where 2^32 compares as 0 and is
// rejected after 2^32-1, and an older token can win over a newer one. A
// run with dense tokens never gets there; tokens that jump across 2^32
// (lease.Sparse, `--tokens sparse`) find it in one run. It declares no
// token domain: it claims to store every uint64, as the defect it models
// does.
type Uint32Tokens struct{ table }

// NewUint32Tokens returns a receiver that compares the low 32 bits of
// tokens.
func NewUint32Tokens() *Uint32Tokens { return &Uint32Tokens{} }

// Write applies value if token's low 32 bits are above the stored
// token's.
func (u *Uint32Tokens) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return u.writeIf(resource, cell{value: value, token: token}, func(current uint64) bool {
		return uint32(token) > uint32(current)
	}), nil
}
