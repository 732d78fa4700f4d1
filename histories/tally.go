package histories

// Tally counts operations and measures their evidence one at a time, as
// they end: Count and History.Evidence for a history read as a stream,
// which is never in memory whole. Its memory is the resources and a bit
// per process.
type Tally struct {
	c         Counts
	resources map[string]*resourceEvidence
	order     []string
	procs     []uint64 // a bit per process id below tallyBits
	sparse    map[int]struct{}
}

// tallyBits bounds the process ids a Tally counts in its bitset (16 MB at
// most): a soak run retires a process id at every unknown outcome, and a
// map of millions of ids would be most of a followed check's memory.
const tallyBits = 1 << 27

// Add counts op.
func (t *Tally) Add(op *Operation) {
	if op.Initial {
		return // the state before the run, not an operation
	}
	ev, ok := t.resources[op.Resource]
	if !ok {
		if t.resources == nil {
			t.resources = make(map[string]*resourceEvidence)
		}
		ev = &resourceEvidence{firstAck: Infinity, lastRead: -1}
		t.resources[op.Resource] = ev
		t.order = append(t.order, op.Resource)
	}
	ev.add(op.IsWrite(), op.Status, op.Call, op.Return)
	t.process(op.Process)
	t.c.add(op.IsWrite(), op.Status)
}

// process counts a process id once.
func (t *Tally) process(p int) {
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

// Counts returns what Count returns for the operations added.
func (t *Tally) Counts() Counts {
	c := t.c
	c.Resources = len(t.order)
	return c
}

// Evidence returns what History.Evidence returns for the operations
// added, with errors the target's.
func (t *Tally) Evidence(errors ErrorSummary) Evidence {
	out := Evidence{Resources: len(t.order), Errors: errors}
	for _, name := range t.order {
		if why := t.resources[name].missing(); why != "" {
			out.Thin = append(out.Thin, ThinResource{Resource: name, Why: why})
		}
	}
	return out
}
