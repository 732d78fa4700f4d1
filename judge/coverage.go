package judge

import (
	"cmp"
	"math"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// Coverage says which hazards a history actually exercised, and how
// often. A run that never sent a stale write proved nothing about
// fencing; the article's point is that a passed test must say what it
// excluded.
type Coverage struct {
	// StaleWrites were submitted after a write with a higher token had been
	// accepted and had returned on the same resource: the protected case.
	StaleWrites   int `json:"stale_writes"`
	StaleRejected int `json:"stale_rejected"`
	StaleAccepted int `json:"stale_accepted"`
	StaleUnknown  int `json:"stale_unknown"`
	// EqualTokenRepeats carried a token an earlier write on the resource
	// had carried: a second write by the same owner, or a duplicate.
	EqualTokenRepeats  int `json:"equal_token_repeats"`
	EqualTokenAccepted int `json:"equal_token_accepted"`
	// OldTokenFirst were accepted although their lease had been reassigned
	// before they completed: the newer token had not reached the resource
	// yet. Fencing allows this (the article's last replay line). Those sent
	// after the reassignment are what Options.RequireExclusive forbids.
	OldTokenFirst int `json:"old_token_first"`
	// ConcurrentWrites were invoked while another write on the same
	// resource was in flight (invoked before, not yet completed, or never
	// completed) and did not fail: the interleavings that a receiver whose
	// comparison and mutation are not one atomic step gets wrong.
	ConcurrentWrites int `json:"concurrent_writes"`
	// UnknownOutcomes are operations whose result the worker never learned.
	UnknownOutcomes int `json:"unknown_outcomes"`
	// InitialStates counts resources that held a value before the run.
	InitialStates int `json:"initial_states,omitempty"`
	// RejectedByResource counts rejected writes per resource.
	RejectedByResource map[string]int `json:"rejected_by_resource"`
	LeaseGrants        int            `json:"lease_grants"`
	LeaseExpiries      int            `json:"lease_expiries"`
	// FaultActions counts the nemesis's actions (a worker paused, a write
	// delayed or duplicated, a lease expired early) per fault.
	FaultActions map[string]int `json:"fault_actions"`
	// LeaderChanges counts the changes of the token issuer's leader the
	// issuer faults saw; GrantsAfterFailover the lease grants recorded
	// after the first server they took down came back. A run with an
	// issuer fault and no such grant did not test the token sequence
	// across a failover (GateFailover).
	LeaderChanges       int `json:"leader_changes,omitempty"`
	GrantsAfterFailover int `json:"grants_after_failover,omitempty"`
	// Crashes counts the receiver's crashes (histories.FCrash events,
	// which also count among their fault's FaultActions).
	// StaleAfterCrash counts the stale writes the receiver answered
	// (accepted or rejected) that were sent after a crash, with a token
	// below one it had accepted before that crash: the article's worker
	// A resuming against a receiver that restarted. Only those test
	// whether it keeps its highest token across a crash; a history with
	// crashes and none of them did not (GateCrash).
	Crashes         int `json:"crashes,omitempty"`
	StaleAfterCrash int `json:"stale_after_crash,omitempty"`
	// Unmeasured names the fields above that were not measured, and are
	// zero for that reason: a history judged as it was written (Follow)
	// does not keep what equal tokens and old tokens first need.
	Unmeasured []string `json:"unmeasured,omitempty"`
}

// measure computes the coverage of h, and the writes that break the
// exclusive requirement; issuerFaults name the faults whose outages end
// in a failover (Options.IssuerFaults).
//
// It works on the compact form, a few bytes of scratch per write, so that
// the coverage of a history of millions of operations costs little beside
// its check.
func measure(h *histories.History, issuerFaults []string) (Coverage, []ExclusiveViolation) {
	c := Coverage{RejectedByResource: make(map[string]int), FaultActions: make(map[string]int)}
	grants := make(map[string][]grant)
	var crashes []int64 // the indexes of the receiver's crashes, in order
	for _, e := range h.Others {
		switch {
		case e.Actor == histories.ActorLease && e.F == histories.FAcquire:
			c.LeaseGrants++
			grants[e.Resource] = append(grants[e.Resource], grant{time: e.Time, token: e.Token})
		case e.Actor == histories.ActorLease && (e.F == histories.FExpire || e.F == histories.FRevoke || e.F == histories.FRelease):
			if e.F != histories.FRelease {
				c.LeaseExpiries++
			}
			endGrant(grants[e.Resource], e)
		case e.Actor == histories.ActorNemesis && e.F == histories.FBegin:
			c.FaultActions[e.Fault]++
		case e.Actor == histories.ActorNemesis && e.F == histories.FCrash:
			c.FaultActions[e.Fault]++
			c.Crashes++
			crashes = append(crashes, e.Index)
		}
	}
	// The writes of each resource that did not fail, by position, in
	// invocation order; the resources in the order of their first such
	// write. Failed writes are kept apart: they were in flight, and took
	// no effect.
	writes := make(map[uint32][]int32)
	failed := make(map[uint32][]int32)
	var order []uint32
	for k := range h.Ops {
		op := &h.Ops[k]
		if op.Initial() {
			c.InitialStates++
			continue
		}
		if op.Status == histories.StatusUnknown {
			c.UnknownOutcomes++
		}
		if !op.IsWrite() {
			continue
		}
		if op.Status == histories.StatusFailed {
			failed[op.Resource] = append(failed[op.Resource], int32(k))
			continue
		}
		if op.Status == histories.StatusRejected {
			c.RejectedByResource[h.ResourceName(op.Resource)]++
		}
		if _, ok := writes[op.Resource]; !ok {
			order = append(order, op.Resource)
		}
		writes[op.Resource] = append(writes[op.Resource], int32(k))
	}
	var excl []ExclusiveViolation
	for _, r := range order {
		w := writes[r]
		stale := c.staleWrites(h, w, crashes)
		c.equalRepeats(h, w)
		c.concurrentWrites(h, w, failed[r])
		excl = append(excl, c.oldTokenFirst(h, w, grants[h.ResourceName(r)], stale)...)
	}
	c.measureFailover(h.Others, issuerFaults)
	return c, excl
}

// grant is one lease on a resource: when it was granted, its token, and
// when and how the issuer ended it (end is zero while it lasts).
type grant struct {
	time  int64
	token uint64
	end   int64
	how   string
}

// endGrant records e, an event that ends a lease, on the latest grant of
// its token that has not ended: an issuer that granted a token twice
// ends each grant apart.
func endGrant(grants []grant, e histories.Event) {
	for i := len(grants) - 1; i >= 0; i-- {
		if grants[i].token == e.Token && grants[i].end == 0 {
			grants[i].end, grants[i].how = max(e.Time, 1), e.F
			return
		}
	}
}

// staleWrites counts the writes (positions in h) sent after a higher
// token had been accepted and returned, and returns them; and, of those
// the receiver answered, the ones sent after a crash (crashes are the
// indexes of its events) with a token below one whose acceptance was
// recorded before that crash. Crossing a crash is decided by the order
// of the events, as a history followed line by line sees them (meter.go
// counts the same).
func (c *Coverage) staleWrites(h *histories.History, writes []int32, crashes []int64) map[int32]bool {
	accepted := slices.DeleteFunc(slices.Clone(writes), func(k int32) bool { return h.Ops[k].Status != histories.StatusAccepted })
	slices.SortFunc(accepted, func(a, b int32) int { return cmp.Compare(h.Ops[a].Return, h.Ops[b].Return) })
	before := newAcceptedBefore(h, accepted)
	byCall := slices.Clone(writes)
	slices.SortStableFunc(byCall, func(a, b int32) int { return cmp.Compare(h.Ops[a].Call, h.Ops[b].Call) })
	stale := make(map[int32]bool)
	var highest uint64
	j := 0
	for _, k := range byCall {
		w := &h.Ops[k]
		for j < len(accepted) && h.Ops[accepted[j]].Return < w.Call {
			highest = max(highest, h.Ops[accepted[j]].Token)
			j++
		}
		if w.Token >= highest {
			continue
		}
		stale[k] = true
		c.StaleWrites++
		switch w.Status {
		case histories.StatusRejected:
			c.StaleRejected++
		case histories.StatusAccepted:
			c.StaleAccepted++
		default:
			c.StaleUnknown++
			continue
		}
		// The last crash recorded before the write was sent: a later
		// crash has every earlier one's acceptances before it.
		if n, _ := slices.BinarySearch(crashes, w.InvokeIndex); n > 0 && w.Token < before.highest(crashes[n-1]) {
			c.StaleAfterCrash++
		}
	}
	return stale
}

// acceptedBefore answers, for a resource's accepted writes, the highest
// token among those whose acceptance was recorded before an index.
type acceptedBefore struct {
	done []int64  // the completion indexes, ascending
	max  []uint64 // max[i]: the highest token of the first i+1
}

func newAcceptedBefore(h *histories.History, accepted []int32) acceptedBefore {
	byDone := slices.Clone(accepted)
	slices.SortFunc(byDone, func(a, b int32) int { return cmp.Compare(h.CompleteIndex(int(a)), h.CompleteIndex(int(b))) })
	a := acceptedBefore{done: make([]int64, len(byDone)), max: make([]uint64, len(byDone))}
	for i, k := range byDone {
		a.done[i], a.max[i] = h.CompleteIndex(int(k)), h.Ops[k].Token
		if i > 0 {
			a.max[i] = max(a.max[i], a.max[i-1])
		}
	}
	return a
}

// highest returns the highest token accepted before index; 0 if none.
func (a acceptedBefore) highest(index int64) uint64 {
	i, _ := slices.BinarySearch(a.done, index)
	if i == 0 {
		return 0
	}
	return a.max[i-1]
}

// equalRepeats counts the writes that carried a token an earlier write
// on the resource carried.
func (c *Coverage) equalRepeats(h *histories.History, writes []int32) {
	seen := make(map[uint64]bool)
	for _, k := range writes { // in invocation order
		w := &h.Ops[k]
		if seen[w.Token] {
			c.EqualTokenRepeats++
			if w.Status == histories.StatusAccepted {
				c.EqualTokenAccepted++
			}
		}
		seen[w.Token] = true
	}
}

// concurrentWrites counts the writes that did not fail and were invoked
// while an earlier write on the resource, failed or not, had not
// completed. It compares the events' indexes, not their times, so two
// events at the same instant are in the order they were recorded in, as
// a history followed line by line sees them (meter.go counts the same).
func (c *Coverage) concurrentWrites(h *histories.History, writes, failed []int32) {
	all := slices.Concat(writes, failed)
	slices.Sort(all)    // positions are in invocation order
	var last int64 = -1 // the latest completion index of the earlier writes
	for _, k := range all {
		op := &h.Ops[k]
		if op.InvokeIndex < last && op.Status != histories.StatusFailed {
			c.ConcurrentWrites++
		}
		done := h.CompleteIndex(int(k))
		if done < 0 {
			done = math.MaxInt64 // never completed: in flight to the end
		}
		last = max(last, done)
	}
}

// oldTokenFirst counts accepted writes that completed after their lease had
// been reassigned (a higher token granted), and returns those sent after
// it, or after the issuer ended their lease (see ended). Stale writes are
// left out: accepting them is a linearizability violation already.
func (c *Coverage) oldTokenFirst(h *histories.History, writes []int32, grants []grant, stale map[int32]bool) []ExclusiveViolation {
	// grants are in history order, so in time order; prefix maxima.
	prefix := make([]uint64, len(grants))
	var m uint64
	for i, g := range grants {
		m = max(m, g.token)
		prefix[i] = m
	}
	var out []ExclusiveViolation
	for _, k := range writes {
		w := &h.Ops[k]
		if w.Status != histories.StatusAccepted || stale[k] {
			continue
		}
		if highestBefore(grants, prefix, w.Return) > w.Token {
			c.OldTokenFirst++
		}
		var x ExclusiveViolation
		if newer := highestBefore(grants, prefix, w.Call); newer > w.Token {
			x.NewerToken = newer
		}
		if g, ok := ended(grants, w.Token, w.Call); ok {
			x.LeaseEnded, x.LeaseEnd = g.end, g.how
		}
		if x.NewerToken > 0 || x.LeaseEnded > 0 {
			op := h.Operation(int(k))
			x.OpID, x.Process, x.Resource, x.Token, x.Call = op.ID, op.Process, op.Resource, op.Token, op.Call
			out = append(out, x)
		}
	}
	return out
}

// highestBefore returns the highest token granted strictly before t.
func highestBefore(grants []grant, prefix []uint64, t int64) uint64 {
	i, _ := slices.BinarySearchFunc(grants, t, func(g grant, t int64) int {
		if g.time < t {
			return -1
		}
		return 1
	})
	if i == 0 {
		return 0
	}
	return prefix[i-1]
}

// measureFailover counts, for the issuer faults named, the leader changes
// they saw and the lease grants recorded after the first server they took
// down came back (the end of its outage).
func (c *Coverage) measureFailover(others []histories.Event, faults []string) {
	back := false
	for _, e := range others {
		switch {
		case e.Actor == histories.ActorNemesis && e.F == histories.FLeader:
			c.LeaderChanges++
		case e.Actor == histories.ActorNemesis && e.F == histories.FEnd && slices.Contains(faults, e.Fault):
			back = true
		case back && e.Actor == histories.ActorLease && e.F == histories.FAcquire:
			c.GrantsAfterFailover++
		}
	}
}
