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
func (h *History) Count() Counts {
	var c Counts
	resources := make([]bool, len(h.resources.list))
	processes := make([]bool, len(h.processes))
	for i := range h.Ops {
		op := &h.Ops[i]
		if op.Initial() {
			continue
		}
		if !resources[op.Resource] {
			resources[op.Resource] = true
			c.Resources++
		}
		if !processes[op.Process] {
			processes[op.Process] = true
			c.Processes++
		}
		c.add(op.IsWrite(), op.Status)
	}
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
