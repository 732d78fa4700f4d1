package harness

import (
	"time"

	"github.com/fencecheck/fencecheck/sched"
)

// suspender is a lease service that can let a lease run out on the
// issuer, as it does when its holder pauses: the keepalive that renews
// an etcd lease runs beside the worker and stops with it; a Redis or
// PostgreSQL lease has none and runs out by its TTL. lease.Local is no
// suspender: it ends a paused worker's lease at once (ExpireToken), so
// that its deterministic runs keep their histories.
type suspender interface {
	// Suspend stops renewing the lease on resource that carries token,
	// if it is still current, and calls ended once its end is recorded
	// (its TTL ran out on the issuer, or anything else ended it). within
	// is how long that may take on an issuer that works; ok is false
	// when the lease is no longer current.
	Suspend(resource string, token uint64, ended func()) (within time.Duration, ok bool)
}

// lapseLease implements nemesis.Env.LapseLease with the lease service's
// Suspend, when it has one.
func (r *run) lapseLease(resource string, token uint64) (sched.Gate, time.Duration, bool) {
	s, ok := r.leases.(suspender)
	if !ok {
		return nil, 0, false
	}
	ended := r.rt.NewGate()
	within, ok := s.Suspend(resource, token, ended.Open)
	return ended, within, ok
}
