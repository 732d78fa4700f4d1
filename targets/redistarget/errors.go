package redistarget

import (
	"errors"
	"fmt"
	"net"

	"github.com/redis/go-redis/v9"

	"github.com/fencecheck/fencecheck/targets"
)

// An error from a write is an unknown outcome: the command may have been
// applied even though no answer came back. That covers a connection that
// broke after the command was sent, a timeout, and every error reply of
// a script: Redis does not undo what a script wrote before it failed, so
// a script that errors half-way may have written.
//
// A write is definitely not applied, and wraps
// targets.ErrDefinitelyNotApplied (recorded as fail), only when the
// command that would change the resource never reached the server, or
// the server says it discarded it:
//   - no connection could be had: the dial failed, the pool's wait timed
//     out, the client was closed;
//   - check-then-set and watch failed at their read, before their write;
//   - watch's EXEC answered nil every time it was tried (see watch.go).
func notApplied(err error) error {
	return fmt.Errorf("%w: %w", targets.ErrDefinitelyNotApplied, err)
}

// classify marks err as definitely not applied when go-redis never had a
// connection to send the command on, and leaves it an unknown outcome
// otherwise.
func classify(err error) error {
	var op *net.OpError
	switch {
	case errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout), errors.Is(err, redis.ErrPoolExhausted):
		return notApplied(err)
	case errors.As(err, &op) && op.Op == "dial":
		return notApplied(err)
	}
	return err
}
