package histories

// tally counts the operations of a followed history and measures their
// evidence, one operation at a time, as each ends. A Follower's history
// is never in memory whole (a soak run's, followed by check --follow),
// so it cannot be counted as a History is, by History.Count and
// History.Evidence, which read the numbered operations at once; the
// tally applies their rules (Counts.add, resourceEvidence.add) to the
// same operations, and FuzzFollowMatchesRead holds it to what they say.
//
// Its resources are the Follower's numbers; its memory is the resources
// and a bit per process id.
type tally struct {
	c         Counts
	resources []resourceEvidence // by resource number
	order     []uint32           // the resources in the order of their first operation
	procs     []uint64           // a bit per process id below tallyBits
	sparse    map[int]struct{}
}

// tallyBits bounds the process ids a tally counts in its bitset (16 MB
// at most): a soak run retires a process id at every unknown outcome,
// and a map of millions of ids would be most of a followed check's
// memory.
const tallyBits = 1 << 27

// note makes resource r known, in the order of its first operation, and
// returns its evidence. The Follower notes a resource when an operation
// begins, so that the order is a History's, the order of invocation.
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

// process counts a process id once.
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

// counts returns what History.Count says of the operations added.
func (t *tally) counts() Counts {
	c := t.c
	c.Resources = len(t.order)
	return c
}

// evidence returns what History.Evidence says of the operations added,
// resources named by name, with errors the target's.
func (t *tally) evidence(name func(r uint32) string, errors ErrorSummary) Evidence {
	out := Evidence{Resources: len(t.order), Errors: errors}
	for _, r := range t.order {
		if why := t.resources[r].missing(); why != "" {
			out.Thin = append(out.Thin, ThinResource{Resource: name(r), Why: why})
		}
	}
	return out
}
