package targets

import (
	"context"
	"errors"

	"github.com/fencecheck/fencecheck/histories"
)

// TokenlessWriter is a target that can be sent a write without a fencing
// token, as a client that does not fence sends it: the receiver learns
// nothing of the writer's ownership and so cannot reject it. The client
// strategies that do not fence (none, longer-lease, renew,
// check-before-write) write this way; the history still records, on the
// write's invocation, the token of the lease the write belongs to, so
// that the checker can tell an older owner's write that replaced a newer
// owner's (a stale write accepted).
//
// WriteWithoutToken answers like Write: Accepted, Rejected when the
// receiver refused it (a receiver may refuse writes without a token), or
// an error for an unknown outcome. CheckTokenless says, before a run,
// whether this target can send such writes at all (nil), or why not.
type TokenlessWriter interface {
	CheckTokenless() error
	WriteWithoutToken(ctx context.Context, resource, value string) (histories.Outcome, error)
}

// ErrNoTokenless is what Tokenless returns for a target that has no way
// to send a write without its token.
var ErrNoTokenless = errors.New("targets: the target has no way to send a write without its fencing token")

// Tokenless returns t's TokenlessWriter, or why it cannot write without a
// token.
func Tokenless(t Target) (TokenlessWriter, error) {
	w, ok := t.(TokenlessWriter)
	if !ok {
		return nil, ErrNoTokenless
	}
	if err := w.CheckTokenless(); err != nil {
		return nil, err
	}
	return w, nil
}
