package histories

import (
	"fmt"
	"math"
)

// part is one of several histories judged as one: the history a shard of
// a job recorded, named by its file.
type part struct {
	Name    string // the file, for errors and for people
	History *History
	_       struct{}
}

// Placed says where a part went in a joined history: each of its event
// indexes, times and client process ids is its own plus Index, Time and
// Process. Processes is the number of process ids it took (its highest
// plus one).
type Placed struct {
	Name      string `json:"name"`
	Index     int64  `json:"index_offset"`
	Time      int64  `json:"time_offset_ns"`
	Process   int    `json:"process_offset"`
	Processes int    `json:"processes"`
	Truncated bool   `json:"truncated,omitempty"`
}

// splitResourceError is a resource with events in two parts. Each part
// has its own clock (its times count from its own start), so the
// operations of a resource split across two parts cannot be ordered, and
// no verdict about the resource could be trusted.
type splitResourceError struct {
	resource      string
	first, second string // the parts' names
}

func (e *splitResourceError) Error() string {
	return fmt.Sprintf("resource %q is in %s and in %s: each history has its own clock, so a resource must be recorded by one process; the shards of one job must own disjoint resources",
		e.resource, printable(e.first), printable(e.second))
}

// join lays parts end to end into one history that checkers judge as
// they judge one file, resource by resource, and says where each part
// went in it: part k's events follow part k-1's, with their indexes and
// times shifted past the last of part k-1 and their client processes
// numbered after part k-1's, so that no two parts share a process (a
// process is one client, with one operation in flight). Times of two
// parts are never compared by that: every resource must be in one part
// (else an error naming it and both parts), and every judgement of a
// history, of the receiver and of the token issuer alike, is made per
// resource. Shifting the times keeps what is judged by time apart too: a
// fault window of one part never spans another part's operations.
//
// The worker numbers of lease events (Event.Holder) are left as they are:
// they name a worker within its part, as the resource names the part.
// The parts are not changed.
func join(parts []part) (*History, []Placed, error) {
	if err := splitResources(parts); err != nil {
		return nil, nil, err
	}
	h := &History{}
	var nOps, nOthers int
	for _, p := range parts {
		nOps += len(p.History.Ops)
		nOthers += len(p.History.Others)
	}
	h.Ops, h.Others = make([]CompactOp, 0, nOps), make([]Event, 0, nOthers)
	var placed []Placed
	var next Placed // where the next part goes
	for _, p := range parts {
		ext := extentOf(p.History)
		at := next
		at.Name, at.Truncated, at.Processes = p.Name, p.History.Truncated, ext.processes
		if ext.events && (ext.lastIndex > math.MaxInt64-at.Index || ext.lastTime >= math.MaxInt64-at.Time ||
			ext.processes > math.MaxInt-at.Process) {
			return nil, nil, fmt.Errorf("%s: its indexes, times or processes cannot follow those of the histories before it: together they exceed 2^63", printable(p.Name))
		}
		for k := range p.History.Ops {
			op := p.History.Operation(k)
			op.ID = len(h.Ops)
			op.InvokeIndex += at.Index
			if op.CompleteIndex >= 0 {
				op.CompleteIndex += at.Index
			}
			if !op.Initial {
				op.Process += at.Process
				op.Call += at.Time
				if op.Return != Infinity {
					op.Return += at.Time
				}
			}
			h.add(&op)
		}
		for _, e := range p.History.Others {
			e.Index += at.Index
			e.Time += at.Time
			h.Others = append(h.Others, e)
		}
		h.Events += p.History.Events
		h.Truncated = h.Truncated || p.History.Truncated
		h.Errors.merge(&p.History.Errors)
		if ext.events {
			next.Index, next.Time = at.Index+ext.lastIndex+1, at.Time+ext.lastTime+1
		}
		next.Process = at.Process + ext.processes
		placed = append(placed, at)
	}
	return h, placed, nil
}

// splitResources finds a resource with events in two parts.
func splitResources(parts []part) error {
	owner := make(map[string]int)
	claim := func(resource string, part int) error {
		if resource == "" {
			return nil
		}
		first, ok := owner[resource]
		if !ok {
			owner[resource] = part
			return nil
		}
		if first != part {
			return &splitResourceError{resource: resource, first: parts[first].Name, second: parts[part].Name}
		}
		return nil
	}
	for i, p := range parts {
		// Resources are numbered in the order of their first operation,
		// so the first one claimed here is the first in the part.
		for r := range p.History.Resources() {
			if err := claim(p.History.ResourceName(uint32(r)), i); err != nil {
				return err
			}
		}
		for j := range p.History.Others {
			if err := claim(p.History.Others[j].Resource, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// extent is how far a history's indexes, times and processes reach.
type extent struct {
	events              bool // any event with an index
	lastIndex, lastTime int64
	processes           int // highest client process + 1
}

// extentOf measures h. The time of an info completion is not kept (an
// operation with an unknown outcome returns at Infinity), so the last time
// is the last one h knows; no judgement needs the one it does not.
func extentOf(h *History) extent {
	var x extent
	see := func(index, time int64) {
		x.events = true
		x.lastIndex = max(x.lastIndex, index)
		x.lastTime = max(x.lastTime, time)
	}
	for k := range h.Ops {
		op := &h.Ops[k]
		see(op.InvokeIndex, max(op.Call, 0))
		if complete := h.CompleteIndex(k); complete >= 0 {
			see(complete, 0)
		}
		if op.Return != Infinity {
			see(op.InvokeIndex, max(op.Return, 0))
		}
		if !op.Initial() {
			x.processes = max(x.processes, h.processes[op.Process]+1)
		}
	}
	for i := range h.Others {
		see(h.Others[i].Index, h.Others[i].Time)
	}
	return x
}

// merge adds the errors of o to s: kinds s already has count o's too, new
// kinds follow s's own, up to maxErrorKinds.
func (s *ErrorSummary) merge(o *ErrorSummary) {
	s.Other += o.Other
	for _, k := range o.Kinds {
		key := k.key
		if key == "" {
			key = errorKey(k.F, k.Example)
		}
		found := false
		for i := range s.Kinds {
			if s.Kinds[i].key == key {
				s.Kinds[i].Count += k.Count
				found = true
				break
			}
		}
		switch {
		case found:
		case len(s.Kinds) == maxErrorKinds:
			s.Other += k.Count
		default:
			k.key = key
			s.Kinds = append(s.Kinds, k)
		}
	}
}
