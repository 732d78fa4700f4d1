package histories

import "slices"

// CompactOp is an Operation in 48 bytes without a pointer: its resource,
// process and value are numbers into the tables of its History, which
// reading fills as it pairs. A history of ten million operations is then
// under half a gigabyte, where Operations (about 150 bytes and three
// strings each) take one and a half, and the garbage collector never
// scans it. TestCompactOpSize holds the size.
//
// Its ID is its position in History.Ops, unless the History was made from
// operations whose IDs are not their positions (FromOperations).
type CompactOp struct {
	Call   int64 // time of the invocation
	Return int64 // time of the completion, Infinity when unknown
	// Token is the token a write carried, or the token a read reported
	// (when HasToken).
	Token       uint64
	InvokeIndex int64
	// Value is the number of the value in the History's arena, 0 when
	// there is none (a read of an unwritten resource; HasValue).
	Value    uint32
	Resource uint32 // the number of the resource name (History.ResourceName)
	Process  uint32 // the number of the process id (Operation(k).Process)
	Status   Status
	flags    opFlags
	// span is CompleteIndex-InvokeIndex: 0 when the operation never
	// completed (indexes strictly increase, so a completion is never at
	// span 0), spanFar when it does not fit and History.far holds it.
	span uint16
}

// noValue is CompactOp.Value when the operation has no value.
const noValue uint32 = 0

type opFlags uint8

const (
	flagWrite opFlags = 1 << iota
	flagHasToken
	flagInitial
)

// spanFar marks a completion too far from its invocation for span.
const spanFar = 1<<16 - 1

// IsWrite reports whether o is a write.
func (o *CompactOp) IsWrite() bool { return o.flags&flagWrite != 0 }

// HasToken reports whether Token was given (always on writes).
func (o *CompactOp) HasToken() bool { return o.flags&flagHasToken != 0 }

// HasValue reports whether the operation has a value.
func (o *CompactOp) HasValue() bool { return o.Value != noValue }

// Initial reports whether o is the state before the run (Operation.Initial).
func (o *CompactOp) Initial() bool { return o.flags&flagInitial != 0 }

// f returns FWrite or FRead.
func (o *CompactOp) f() string {
	if o.IsWrite() {
		return FWrite
	}
	return FRead
}

// History is a paired history: the client operations in order of
// invocation, the events of the other actors, and what reading found.
//
// It is the one form of a history: reading, pairing and joining give
// it, and checking, counting and measuring its evidence take it. The
// operations are kept compact (CompactOp), numbers into the tables of the
// History, so that `fencecheck check` holds ten million of them in under
// half a gigabyte. Operation(k) is the view of one in the full form, with
// its names and value, and Expand gives the full form of many, for what
// reads operations one resource at a time (explaining a violation,
// shrinking it, a report).
type History struct {
	Ops       []CompactOp
	resources names
	processes []int
	procIndex procTable // process id → number
	values    arena
	// traces holds each operation's trace (a value number), made only
	// once an operation has one: a history without traces pays nothing.
	traces []uint32
	// far holds CompleteIndex for the operations whose span does not fit.
	far map[int32]int64
	// ids holds each operation's ID when they are not the positions
	// (FromOperations of a sub-history); nil otherwise.
	ids []int

	Others []Event // lease and nemesis events, in history order
	Events int     // number of events read, of every actor, the header not counted
	// Format is the version of the format the history's header names
	// (Header), 0 for a history without a header.
	Format int
	// Truncated is set when the file ended in a partial line (a killed
	// writer) that was dropped.
	Truncated bool
	// Errors are the first distinct errors the target answered with,
	// from the error fields of fail and info completions.
	Errors ErrorSummary
	// Parts says where each history went when Read joined several into
	// this one; nil for one.
	Parts []Placed
}

// id returns the ID of the operation at position k (Operation(k).ID).
func (h *History) id(k int) int {
	if h.ids != nil {
		return h.ids[k]
	}
	return k
}

// ResourceName returns the name of resource number r.
func (h *History) ResourceName(r uint32) string { return h.resources.list[r] }

// Resources returns the number of distinct resource names.
func (h *History) Resources() int { return len(h.resources.list) }

// resourceNumber returns the number of a resource name, if any operation
// has it.
func (h *History) resourceNumber(name string) (uint32, bool) {
	r, ok := h.resources.index[name]
	return r, ok
}

// Value returns the value of op ("" when it has none). The string shares
// the arena's bytes: it costs no allocation.
func (h *History) Value(op *CompactOp) string { return h.values.get(op.Value) }

// CompleteIndex returns the index of the completion of the operation at
// position k, -1 when it never completed.
func (h *History) CompleteIndex(k int) int64 {
	op := &h.Ops[k]
	switch op.span {
	case 0:
		return -1
	case spanFar:
		return h.far[int32(k)]
	}
	return op.InvokeIndex + int64(op.span)
}

// trace returns the trace of the operation at position k, "" for none.
func (h *History) trace(k int) string {
	if k < len(h.traces) {
		return h.values.get(h.traces[k])
	}
	return ""
}

// Operation returns the operation at position k in the full form.
func (h *History) Operation(k int) Operation {
	op := &h.Ops[k]
	return Operation{
		ID: h.id(k), Process: h.processes[op.Process], F: op.f(), Resource: h.ResourceName(op.Resource),
		Token: op.Token, HasToken: op.HasToken(), Value: h.Value(op), HasValue: op.HasValue(),
		Status: op.Status, Call: op.Call, Return: op.Return,
		InvokeIndex: op.InvokeIndex, CompleteIndex: h.CompleteIndex(k), Initial: op.Initial(), Trace: h.trace(k),
	}
}

// Expand returns the operations keep selects, in the full form and in
// history order; keep nil selects all.
func (h *History) Expand(keep func(k int) bool) []Operation {
	n := len(h.Ops)
	if keep != nil {
		// Counted first, so that the operations are allocated once:
		// growing a slice of a million of them copies it over and over.
		n = 0
		for k := range h.Ops {
			if keep(k) {
				n++
			}
		}
	}
	out := make([]Operation, 0, n)
	for k := range h.Ops {
		if keep == nil || keep(k) {
			out = append(out, h.Operation(k))
		}
	}
	return out
}

// FromOperations returns the history of ops, operations in the full form
// with their IDs, and of no other event: how operations built in memory
// (tests, a shrinker's candidates) are checked. The operations may be held
// elsewhere (ops of pointers): a caller that assembles a history out of
// another's operations (a shrinker's candidate with the resource's
// writes) builds the compact form without copying each operation in the
// full form first.
func FromOperations[O Operation | *Operation](ops []O) *History {
	h := &History{Ops: make([]CompactOp, 0, len(ops))}
	for i := range ops {
		switch op := any(&ops[i]).(type) {
		case *Operation:
			h.add(op)
		case **Operation:
			h.add(*op)
		}
	}
	return h
}

// add appends op, in the full form, at the next position.
func (h *History) add(op *Operation) {
	if k := len(h.Ops); op.ID != k && h.ids == nil {
		h.ids = make([]int, k, cap(h.Ops))
		for j := range k {
			h.ids[j] = j
		}
	}
	if h.ids != nil {
		h.ids = append(h.ids, op.ID)
	}
	x := CompactOp{Call: op.Call, Return: op.Return, Token: op.Token, InvokeIndex: op.InvokeIndex,
		Resource: h.resources.number(op.Resource), Process: h.process(op.Process), Status: op.Status}
	if op.HasValue {
		x.Value = h.values.add(op.Value)
	}
	if op.IsWrite() {
		x.flags |= flagWrite
	}
	if op.HasToken {
		x.flags |= flagHasToken
	}
	if op.Initial {
		x.flags |= flagInitial
	}
	h.Ops = append(h.Ops, x)
	k := len(h.Ops) - 1
	h.setComplete(k, op.CompleteIndex)
	if op.Trace != "" {
		h.setTrace(k, op.Trace)
	}
}

// process returns the number of process id p, numbering it if it is new.
func (h *History) process(p int) uint32 {
	if n, ok := h.procIndex.get(p); ok {
		return uint32(n)
	}
	n := len(h.processes)
	h.processes = append(h.processes, p)
	h.procIndex.set(p, int64(n))
	return uint32(n)
}

// setComplete records the completion index of the operation at position k.
func (h *History) setComplete(k int, index int64) {
	op := &h.Ops[k]
	if index < 0 {
		op.span = 0
		return
	}
	if d := index - op.InvokeIndex; d > 0 && d < spanFar {
		op.span = uint16(d)
		return
	}
	op.span = spanFar
	if h.far == nil {
		h.far = make(map[int32]int64)
	}
	h.far[int32(k)] = index
}

// setTrace records the trace of the operation at position k.
func (h *History) setTrace(k int, trace string) {
	if len(h.traces) <= k {
		h.traces = slices.Grow(h.traces, max(k+1, cap(h.Ops))-len(h.traces))[:k+1]
	}
	h.traces[k] = h.values.add(trace)
}

// names numbers strings in order of first appearance. A lookup of the
// name looked up last costs a comparison, not a hash: the operations of
// a resource come in runs, and most histories have few resources.
type names struct {
	list  []string
	index map[string]uint32
	last  uint32
}

func (n *names) number(s string) uint32 {
	if len(n.list) > 0 && n.list[n.last] == s {
		return n.last
	}
	r, ok := n.index[s]
	if !ok {
		if n.index == nil {
			n.index = make(map[string]uint32)
		}
		r = uint32(len(n.list))
		// A clone: the name may share the bytes of a whole block of
		// the file, which must not stay in memory for it.
		s = string([]byte(s))
		n.list = append(n.list, s)
		n.index[s] = r
	}
	n.last = r
	return r
}
