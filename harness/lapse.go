package harness

import (
	"time"

	"github.com/fencecheck/fencecheck/lease"
	"github.com/fencecheck/fencecheck/sched"
)

// lapseLease implements nemesis.Env.LapseLease with the lease service's
// Suspend, when it has one.
func (r *run) lapseLease(resource string, token uint64) (sched.Gate, time.Duration, bool) {
	s, ok := r.leases.(lease.Suspender)
	if !ok {
		return nil, 0, false
	}
	ended := r.rt.NewGate()
	within, ok := s.Suspend(resource, token, ended.Open)
	return ended, within, ok
}
