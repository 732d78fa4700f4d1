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
		e := histories.Event{Index: int64(n), Time: s.time, Process: o.Process, F: o.F, Resource: o.Resource}
		if !s.finish {
			o.InvokeIndex = int64(n)
			e.Type = histories.TypeInvoke
			if o.IsWrite() {
				e.Token, e.HasToken, e.Value, e.HasValue = o.Token, true, o.Value, true
			}
			events[n] = e
			continue
		}
		o.CompleteIndex = int64(n)
		complete(&e, o)
		events[n] = e
	}
	return events
}

func complete(e *histories.Event, o *histories.Operation) {
	switch o.Status {
	case histories.StatusUnknown:
		e.Type = histories.TypeInfo
	case histories.StatusFailed:
		e.Type = histories.TypeFail
	case histories.StatusOK:
		e.Type = histories.TypeOK
		e.Token, e.HasToken, e.Value, e.HasValue = o.Token, o.HasToken, o.Value, o.HasValue
	default:
		e.Type = histories.TypeOK
		e.Token, e.HasToken, e.Value, e.HasValue = o.Token, true, o.Value, true
		e.Outcome = histories.Rejected
		if o.Status == histories.StatusAccepted {
			e.Outcome = histories.Accepted
		}
	}
}
