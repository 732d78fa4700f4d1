package histories

// Counts summarizes a history's operations by outcome.
type Counts struct {
	Operations    int `json:"operations"`
	Writes        int `json:"writes"`
	Accepted      int `json:"accepted"`
	Rejected      int `json:"rejected"`
	UnknownWrites int `json:"unknown_writes"`
	FailedWrites  int `json:"failed_writes"`
	Reads         int `json:"reads"`
	UnknownReads  int `json:"unknown_reads"`
	FailedReads   int `json:"failed_reads"`
	Resources     int `json:"resources"`
	Processes     int `json:"processes"`
}

// Count tallies the client operations of h. The state before the run
// (Operation.Initial) is no operation a client performed, and is left
// out.
func (h *History) Count() Counts { return h.tally().counts() }

// tally counts the client operations of h and measures their evidence.
func (h *History) tally() *tally {
	t := &tally{resources: make([]resourceEvidence, len(h.resources.list)), procs: make([]uint64, (len(h.processes)+63)/64)}
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Initial() {
			continue
		}
		t.add(op.Resource, int(op.Process), op.IsWrite(), op.Status, op.Call, op.Return)
	}
	return t
}

// tally counts operations and measures their evidence, one operation at
// a time. It is the one place that does: History.Count and
// History.Evidence run it over a history in memory, and a Follower over
// a history read as it is written, which is never in memory whole (a
// soak run's, followed by check --follow) and so cannot be counted as a
// History. Both then say the same of the same operations
// (FuzzFollowMatchesRead).
//
// Resources are numbers (a History's, or the Follower's own), processes
// any int (a History's process numbers, a Follower's process ids); its
// memory is the resources and a bit per process.
type tally struct {
	c         Counts
	resources []resourceEvidence // by resource number
	order     []uint32           // the resources in the order of their first operation
	procs     []uint64           // a bit per process below tallyBits
	sparse    map[int]struct{}
}

// tallyBits bounds the processes a tally counts in its bitset (16 MB at
// most): a soak run retires a process id at every unknown outcome, and a
// map of millions of ids would be most of a followed check's memory.
const tallyBits = 1 << 27

// note makes resource r known, in the order of its first operation, and
// returns its evidence. A Follower notes a resource when an operation
// begins, so that its order is a History's, which is the order of
// invocation.
func (t *tally) note(r uint32) *resourceEvidence {
	for int(r) >= len(t.resources) {
		t.resources = append(t.resources, resourceEvidence{})
	}
	ev := &t.resources[r]
	if !ev.known {
		*ev = resourceEvidence{known: true, firstAck: Infinity, lastRead: -1}
		t.order = append(t.order, r)
	}
	return ev
}

// add counts an operation on resource r by process p that ended: a write
// or a read, invoked at call and answered at ret.
func (t *tally) add(r uint32, p int, write bool, status Status, call, ret int64) {
	t.note(r).add(write, status, call, ret)
	t.process(p)
	t.c.add(write, status)
}

// process counts a process once.
func (t *tally) process(p int) {
	if uint(p) >= tallyBits {
		if _, ok := t.sparse[p]; !ok {
			if t.sparse == nil {
				t.sparse = make(map[int]struct{})
			}
			t.sparse[p] = struct{}{}
			t.c.Processes++
		}
		return
	}
	for p/64 >= len(t.procs) {
		t.procs = append(t.procs, make([]uint64, max(len(t.procs), 16))...)
	}
	if bit := uint64(1) << (p % 64); t.procs[p/64]&bit == 0 {
		t.procs[p/64] |= bit
		t.c.Processes++
	}
}

// counts returns the counts of the operations added.
func (t *tally) counts() Counts {
	c := t.c
	c.Resources = len(t.order)
	return c
}

// add counts one operation.
func (c *Counts) add(write bool, status Status) {
	c.Operations++
	if write {
		c.Writes++
		switch status {
		case StatusAccepted:
			c.Accepted++
		case StatusRejected:
			c.Rejected++
		case StatusUnknown:
			c.UnknownWrites++
		case StatusFailed:
			c.FailedWrites++
		}
		return
	}
	c.Reads++
	switch status {
	case StatusUnknown:
		c.UnknownReads++
	case StatusFailed:
		c.FailedReads++
	}
}
