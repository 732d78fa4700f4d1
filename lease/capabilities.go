package lease

import (
	"context"
	"errors"
)

// ErrNotHeld is what Renew returns for a lease that is no longer current:
// it ran out, was released or was ended early, and may already belong to
// another worker.
var ErrNotHeld = errors.New("lease: not held")

// Renewer is a Service whose holders can extend their leases: the
// client strategy that renews while it works (workload.Renew) needs one.
// Renew starts the lease's TTL again from now on the issuer, and records
// a renew event; it fails with ErrNotHeld (wrapped) when the lease is no
// longer current. A renewal cannot bring back a lease that has ended: the
// issuer may have granted it again.
type Renewer interface {
	Renew(ctx context.Context, l Lease) error
}

// HolderChecker is a Service that can say whether a lease is still
// current, as the issuer sees it at the moment it answers: the client
// strategy that checks before it writes (workload.CheckBeforeWrite) needs
// one. The answer is out of date as soon as it is given: the lease can
// end, and be granted again, while the answer travels back and the holder
// goes on to write. That is the point the strategy exists to show.
type HolderChecker interface {
	Held(ctx context.Context, l Lease) (bool, error)
}
