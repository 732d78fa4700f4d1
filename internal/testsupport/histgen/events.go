package histgen

import (
	"cmp"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// Events turns operations (as Generate returns them, IDs in order of
// invocation and each process's operations in sequence) into the events of
// a history file, and sets the operations' InvokeIndex and CompleteIndex.
// An unknown outcome becomes an info completion right after the
// invocation, so that reading the file back gives the same operations.
// The events are numbered from histories.FirstIndex, after the header
// histories.Write puts before them.
func Events(ops []histories.Operation) []histories.Event {
	type stamp struct {
		time   int64
		op     int
		finish bool
	}
	stamps := make([]stamp, 0, 2*len(ops))
	for i := range ops {
		end := ops[i].Return
		if end == histories.Infinity {
			end = ops[i].Call
		}
		stamps = append(stamps, stamp{ops[i].Call, i, false}, stamp{end, i, true})
	}
	// At equal times, the earlier operation's events come first and an
	// invocation precedes its own completion: that keeps every process
	// sequential, and times alone decide what is concurrent.
	slices.SortFunc(stamps, func(a, b stamp) int {
		if c := cmp.Compare(a.time, b.time); c != 0 {
			return c
		}
		if c := cmp.Compare(a.op, b.op); c != 0 {
			return c
		}
		if a.finish == b.finish {
			return 0
		}
		if a.finish {
			return 1
		}
		return -1
	})
	events := make([]histories.Event, len(stamps))
	for n, s := range stamps {
		o := &ops[s.op]
		if s.finish {
			o.CompleteIndex = histories.FirstIndex + int64(n)
			_, events[n] = o.Events()
		} else {
			o.InvokeIndex = histories.FirstIndex + int64(n)
			events[n], _ = o.Events()
		}
		// The stamp's time is the operation's Call or Return, except for
		// an unknown outcome's info event, stamped at its Call (above).
		events[n].Time = s.time
	}
	return events
}

// SplitByResource deals the events of one history into n histories by
// resource, as n shards of one job would have recorded them: the
// resources round-robin in order of first appearance, each history's
// events in their original order with indexes from histories.FirstIndex,
// and events of no
// resource (nemesis windows) in the first. part[r] is the history that
// has resource r.
func SplitByResource(events []histories.Event, n int) (split [][]histories.Event, part map[string]int) {
	split, part = make([][]histories.Event, n), make(map[string]int)
	for _, e := range events {
		k, ok := part[e.Resource]
		switch {
		case e.Resource == "":
			k = 0
		case !ok:
			k = len(part) % n
			part[e.Resource] = k
		}
		e.Index = histories.FirstIndex + int64(len(split[k]))
		split[k] = append(split[k], e)
	}
	return split, part
}

// Insert puts e among events at position at, at the time of the event
// before it (0 at the start), so that times stay in order, and numbers
// the events from histories.FirstIndex again.
func Insert(events []histories.Event, at int, e histories.Event) []histories.Event {
	e.Time = 0
	if at > 0 {
		e.Time = events[at-1].Time
	}
	events = slices.Insert(events, at, e)
	for i := range events {
		events[i].Index = histories.FirstIndex + int64(i)
	}
	return events
}
