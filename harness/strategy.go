package harness

import (
	"fmt"
	"sync"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/workload"
)

// nemesisEnd is a lease the nemesis ended: by its token (a pause or a
// delayed write made to outlive it), or, when token is 0, whichever lease
// on resource was current between from and to (an early expiry, which
// names only the resource).
type nemesisEnd struct {
	resource string
	token    uint64
	from, to int64
}

// nemesisEnds are the leases the nemesis ended in a run. A lease that
// ended otherwise than by release and is not among them ran out (or the
// issuer lost it): the strategy's measures tell the two apart.
type nemesisEnds struct {
	mu   sync.Mutex
	ends []nemesisEnd
}

func (n *nemesisEnds) add(e nemesisEnd) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ends = append(n.ends, e)
}

// byNemesis reports whether the lease end event e is the nemesis's.
func (n *nemesisEnds) byNemesis(e *histories.Event) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, x := range n.ends {
		if x.resource != e.Resource {
			continue
		}
		if x.token == e.Token || (x.token == 0 && x.from <= e.Time && e.Time <= x.to) {
			return true
		}
	}
	return false
}

// measureStrategy is what the run's strategy cost its jobs
// (workload.Measure), from the workers' jobs and the lease ends the
// history records.
func (r *run) measureStrategy(h *histories.History) workload.Metrics {
	var ends []workload.LeaseEnd
	for i := range h.Others {
		e := &h.Others[i]
		if e.Actor != histories.ActorLease || (e.F != histories.FExpire && e.F != histories.FRevoke) {
			continue
		}
		ends = append(ends, workload.LeaseEnd{Resource: e.Resource, Token: e.Token, Time: e.Time, ByNemesis: r.ended.byNemesis(e)})
	}
	return workload.Measure(r.workers.Jobs(), ends)
}

// leasesName names the run's lease service in errors.
func (r *run) leasesName() string {
	switch {
	case r.cfg.Leases.Issuer != nil:
		return r.cfg.Leases.Issuer.Name()
	case r.cfg.Leases.Service != nil:
		return fmt.Sprintf("%T", r.cfg.Leases.Service)
	}
	return "the run's own lease service"
}
