package histories

// procTable maps client process ids to a non-negative int64. The pairer
// consults it twice per event; ids are small and dense in practice (the
// harness numbers its workers from 0), so they index a slice, and only
// unusually large (or negative, from hand-made events) ids fall back to a
// map.
type procTable struct {
	dense  []int64 // value+1 by process id; 0 when absent
	sparse map[int]int64
}

// denseLimit bounds the slice: a history with a process id in the billions
// must not allocate gigabytes.
const denseLimit = 1 << 20

func (t *procTable) get(p int) (int64, bool) {
	if uint(p) < denseLimit {
		if p < len(t.dense) && t.dense[p] != 0 {
			return t.dense[p] - 1, true
		}
		return 0, false
	}
	v, ok := t.sparse[p]
	return v, ok
}

func (t *procTable) set(p int, v int64) {
	if uint(p) < denseLimit {
		for p >= len(t.dense) {
			t.dense = append(t.dense, make([]int64, max(len(t.dense), 64))...)
		}
		t.dense[p] = v + 1
		return
	}
	if t.sparse == nil {
		t.sparse = make(map[int]int64)
	}
	t.sparse[p] = v
}

func (t *procTable) remove(p int) {
	if uint(p) < denseLimit {
		if p < len(t.dense) {
			t.dense[p] = 0
		}
		return
	}
	delete(t.sparse, p)
}
