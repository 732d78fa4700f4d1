package report

import (
	"cmp"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// outcome classes, in the order plots and tables show them.
const (
	classAccepted = iota
	classRejected
	classRead
	classUnknown
	classFailed
	classes
)

var classNames = [classes]string{"write accepted", "write rejected", "read", "unknown outcome", "failed"}

// classOf puts an operation in its outcome class.
func classOf(op *histories.Operation) int {
	switch op.Status {
	case histories.StatusAccepted:
		return classAccepted
	case histories.StatusRejected:
		return classRejected
	case histories.StatusOK:
		return classRead
	case histories.StatusFailed:
		return classFailed
	}
	return classUnknown
}

// window is a fault window: a nemesis start/stop pair.
type window struct {
	fault    string
	from, to int64
}

// faultWindows pairs the nemesis start and stop events; a window never
// closed ends at end.
func faultWindows(others []histories.Event, end int64) []window {
	open := make(map[string]int64)
	var out []window
	for _, e := range others {
		if e.Actor != histories.ActorNemesis {
			continue
		}
		switch e.F {
		case histories.FStart:
			open[e.Fault] = e.Time
		case histories.FStop:
			if from, ok := open[e.Fault]; ok {
				out = append(out, window{e.Fault, from, e.Time})
				delete(open, e.Fault)
			}
		}
	}
	for fault, from := range open {
		out = append(out, window{fault, from, end})
	}
	return out
}

// windowBins is the resolution at which fault windows are drawn: windows
// closer than 1/windowBins of the run merge into one band, so that a long
// run with thousands of windows still draws at most a few hundred bands.
const windowBins = 400

// mergeWindows returns the union of ws, in time order, with gaps shorter
// than end/windowBins closed.
func mergeWindows(ws []window, end int64) []window {
	ws = slices.Clone(ws)
	slices.SortFunc(ws, func(a, b window) int { return cmp.Compare(a.from, b.from) })
	gap := end / windowBins
	var out []window
	for _, w := range ws {
		if w.from > end {
			break
		}
		w.to = min(w.to, end)
		if n := len(out); n > 0 && w.from <= out[n-1].to+gap {
			out[n-1].to = max(out[n-1].to, w.to)
			continue
		}
		out = append(out, w)
	}
	return out
}

// reassignments returns the times at which a lease was granted on a
// resource that had been granted before: a new owner, a higher token.
func reassignments(others []histories.Event) []int64 {
	seen := make(map[string]bool)
	var out []int64
	for _, e := range others {
		if e.Actor != histories.ActorLease || e.F != histories.FAcquire {
			continue
		}
		if seen[e.Resource] {
			out = append(out, e.Time)
		}
		seen[e.Resource] = true
	}
	return out
}

// endTime is the last time an operation was invoked or answered: plots
// end there, even if faults or leases went on after the workers stopped.
func endTime(ops []histories.Operation) int64 {
	var end int64
	for i := range ops {
		op := &ops[i]
		end = max(end, op.Call)
		if op.Return != histories.Infinity {
			end = max(end, op.Return)
		}
	}
	return end
}

// sample returns at most n of the indices 0..total-1, evenly spread and
// always the same for the same input, so that reports are reproducible.
func sample(total, n int) []int {
	if total <= n {
		out := make([]int, total)
		for i := range out {
			out[i] = i
		}
		return out
	}
	out := make([]int, n)
	for i := range out {
		out[i] = i * total / n
	}
	return out
}
