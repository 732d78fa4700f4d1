package sched

// timerHeap is the simulation's pending timers, earliest first, ties in
// the order they were set: a binary heap of the tasks they wake, each
// task knowing its place (heapAt) so that a gate that opens can take its
// waiter's timeout out at once. A heap of tasks rather than of boxed
// timer values sets and fires timers without allocating
// (BenchmarkHarness/deterministic). It is written out rather than left
// to container/heap, which would not allocate either with task pointers
// but calls Less and Swap through an interface: over it, four pairs of
// BenchmarkHarness/deterministic took 0.70 to 0.90 of the time per
// operation.
type timerHeap []*task

func (h timerHeap) less(i, j int) bool {
	if h[i].at != h[j].at {
		return h[i].at < h[j].at
	}
	return h[i].seq < h[j].seq
}

func (h timerHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapAt, h[j].heapAt = i, j
}

func (h *timerHeap) push(t *task) {
	t.heapAt = len(*h)
	*h = append(*h, t)
	h.up(t.heapAt)
}

// pop removes and returns the earliest timer's task.
func (h *timerHeap) pop() *task {
	t := (*h)[0]
	h.removeAt(0)
	return t
}

// remove takes t's timer out.
func (h *timerHeap) remove(t *task) { h.removeAt(t.heapAt) }

func (h *timerHeap) removeAt(i int) {
	old := *h
	n := len(old) - 1
	t := old[i]
	if i != n {
		old.swap(i, n)
	}
	old[n] = nil
	*h = old[:n]
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
	t.heapAt = -1
}

func (h timerHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			return
		}
		h.swap(i, j)
		j = i
	}
}

// down moves the timer at i towards the leaves; it reports whether it
// moved.
func (h timerHeap) down(i int) bool {
	start, n := i, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > start
}
