package judge

import (
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// Unmeasured names the coverage a history judged as it is written
// (Follow) does not measure: each needs every earlier token of a resource
// or every grant, which a followed check, whose memory is the operations
// in flight, does not keep.
var unmeasured = []string{"equal_token_repeats", "equal_token_accepted", "old_token_first"}

// A meter measures the coverage of a history as its operations begin and
// end (Follow's sink), in memory bounded by the operations in flight and
// the resources: the stale writes (and those after a crash), the
// concurrent writes, the unknown outcomes, the rejections, the lease and
// fault events. It counts what measure counts on the whole history, the
// same way; TestMeterAgreesWithMeasure holds them together.
type meter struct {
	cov          Coverage
	issuerFaults []string
	resources    map[string]*metered
	// pending are the writes in flight: whether each was stale, or
	// concurrent, when it was invoked.
	pending map[int]pendingWrite
	back    bool // a server an issuer fault took down came back
}

// metered is what the meter keeps of a resource.
type metered struct {
	// highest is the highest token of an accepted write that returned
	// before now; atTime and highestAt hold those that returned at the
	// latest instant, which a write invoked at that same instant does not
	// yet see (measure compares Return < Call).
	highest, highestAt uint64
	atTime             int64
	inFlight           int // writes invoked and not completed
	// atCrash is the highest token accepted before the meter's last
	// crash, once caughtUp is the meter's count of crashes.
	atCrash  uint64
	caughtUp int
}

// pendingWrite is what a write in flight was when it was invoked: stale,
// concurrent with another, and below a token accepted before the last
// crash recorded before it (measure's staleWrites).
type pendingWrite struct{ stale, concurrent, afterCrash bool }

func newMeter(issuerFaults []string) *meter {
	return &meter{cov: Coverage{RejectedByResource: map[string]int{}, FaultActions: map[string]int{}, Unmeasured: slices.Clone(unmeasured)},
		issuerFaults: issuerFaults, resources: map[string]*metered{}, pending: map[int]pendingWrite{}}
}

// resource returns what the meter keeps of name, caught up with the
// crashes recorded since it was last touched: nothing of it changed
// since, so what it accepted then is what it had accepted before the
// last of them.
func (m *meter) resource(name string) *metered {
	r, ok := m.resources[name]
	if !ok {
		r = &metered{atTime: -1}
		m.resources[name] = r
	}
	if r.caughtUp != m.cov.Crashes {
		r.atCrash, r.caughtUp = max(r.highest, r.highestAt), m.cov.Crashes // every token accepted so far
	}
	return r
}

// invoked notes a write as it begins: whether it is stale (a higher token
// was accepted and returned before it was invoked) and whether another
// write on its resource is in flight.
func (m *meter) invoked(op *histories.Operation) {
	if !op.IsWrite() {
		return
	}
	r := m.resource(op.Resource)
	if r.atTime < op.Call {
		r.highest = max(r.highest, r.highestAt)
		r.highestAt = 0
	}
	m.pending[op.ID] = pendingWrite{stale: op.Token < r.highest, concurrent: r.inFlight > 0, afterCrash: op.Token < r.atCrash}
	r.inFlight++
}

// completed counts an operation as it ends, with its final status.
func (m *meter) completed(op *histories.Operation) {
	if op.Initial {
		m.cov.InitialStates++
		return
	}
	if op.Status == histories.StatusUnknown {
		m.cov.UnknownOutcomes++
	}
	if !op.IsWrite() {
		return
	}
	r := m.resource(op.Resource)
	r.inFlight--
	w := m.pending[op.ID]
	delete(m.pending, op.ID)
	if op.Status == histories.StatusFailed {
		return
	}
	if w.concurrent {
		m.cov.ConcurrentWrites++
	}
	switch op.Status {
	case histories.StatusRejected:
		m.cov.RejectedByResource[op.Resource]++
	case histories.StatusAccepted:
		if op.Return > r.atTime {
			r.highest = max(r.highest, r.highestAt)
			r.atTime, r.highestAt = op.Return, 0
		}
		r.highestAt = max(r.highestAt, op.Token)
	}
	if !w.stale {
		return
	}
	m.cov.StaleWrites++
	switch op.Status {
	case histories.StatusRejected:
		m.cov.StaleRejected++
	case histories.StatusAccepted:
		m.cov.StaleAccepted++
	default:
		m.cov.StaleUnknown++
		return
	}
	if w.afterCrash {
		m.cov.StaleAfterCrash++
	}
}

// other counts a lease or nemesis event.
func (m *meter) other(e *histories.Event) {
	switch {
	case e.Actor == histories.ActorLease && e.F == histories.FAcquire:
		m.cov.LeaseGrants++
		if m.back {
			m.cov.GrantsAfterFailover++
		}
	case e.Actor == histories.ActorLease && (e.F == histories.FExpire || e.F == histories.FRevoke):
		m.cov.LeaseExpiries++
	case e.Actor == histories.ActorNemesis && e.F == histories.FBegin:
		m.cov.FaultActions[e.Fault]++
	case e.Actor == histories.ActorNemesis && e.F == histories.FCrash:
		m.cov.FaultActions[e.Fault]++
		m.cov.Crashes++
	case e.Actor == histories.ActorNemesis && e.F == histories.FLeader:
		m.cov.LeaderChanges++
	case e.Actor == histories.ActorNemesis && e.F == histories.FEnd && slices.Contains(m.issuerFaults, e.Fault):
		m.back = true
	}
}
