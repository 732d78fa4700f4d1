package natstarget

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"

	"github.com/fencecheck/fencecheck/targets"
)

// An error from a write is an unknown outcome: the publish may have been
// stored even though no acknowledgement came back (a timeout, a
// connection that broke after the publish was sent).
//
// A write is definitely not applied, and wraps
// targets.ErrDefinitelyNotApplied (recorded as fail), only when its
// publish never left the client or the server said it stored nothing:
//   - the read before the write failed, so nothing was published;
//   - the connection was closed or down when the publish was sent (the
//     client keeps no reconnection buffer, so it was never sent);
//   - atomic's Update was refused for a revision conflict every time it
//     was tried (see write.go).
func notApplied(err error) error {
	return fmt.Errorf("%w: %w", targets.ErrDefinitelyNotApplied, err)
}

// classify marks err as definitely not applied when the client never
// sent the publish, and leaves it an unknown outcome otherwise.
func classify(err error) error {
	switch {
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrReconnectBufExceeded),
		errors.Is(err, nats.ErrConnectionDraining), errors.Is(err, nats.ErrNoServers):
		return notApplied(err)
	}
	return err
}
