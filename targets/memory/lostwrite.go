package memory

import (
	"context"

	"github.com/fencecheck/fencecheck/histories"
)

// LostWriteOdds is how rarely memory://lost-write-rare loses a write it
// accepts: one in this many.
const LostWriteOdds = 200

// LostWriteRare fences correctly, but loses one accepted write in
// LostWriteOdds, picked by a hash of the write (oneIn): it answers
// accepted and stores nothing, neither the value nor the token. It is a
// receiver that acknowledges before its write is durable (a write-back
// cache, an asynchronous replica that loses the write on failover). No
// stale token is involved: the loss shows only when a read sees the older
// value after the acknowledgement, so it needs reads at the right moment
// as well as the rare write.
type LostWriteRare struct{ table }

// NewLostWriteRare returns a receiver that loses one accepted write in
// LostWriteOdds.
func NewLostWriteRare() *LostWriteRare { return &LostWriteRare{} }

// Write applies value if token is newer than every stored token, except
// for the rare write it only acknowledges.
func (l *LostWriteRare) Write(ctx context.Context, resource string, token uint64, value string) (histories.Outcome, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	lose := oneIn(LostWriteOdds, "lost-write-rare", resource, token, value)
	newer := false
	l.writeIf(resource, cell{value: value, token: token}, func(current uint64) bool {
		newer = token > current
		return newer && !lose
	})
	if !newer {
		return histories.Rejected, nil
	}
	return histories.Accepted, nil // stored, or lost
}
