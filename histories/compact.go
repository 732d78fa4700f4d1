package histories

import "slices"

// CompactOp is an Operation in 48 bytes without a pointer: its resource,
// process and value are numbers into the tables of its Compact, which the
// Pairer fills as it reads. A history of ten million operations is then
// under half a gigabyte, where Operations (about 150 bytes and three
// strings each) took one and a half, and the garbage collector never
// scans it. TestCompactOpSize holds the size.
//
// Its ID is its position in Compact.Ops, unless the Compact was made from
// operations whose IDs are not their positions (Compress).
type CompactOp struct {
	Call   int64 // time of the invocation
	Return int64 // time of the completion, Infinity when unknown
	// Token is the token a write carried, or the token a read reported
	// (when HasToken).
	Token       uint64
	InvokeIndex int64
	// Value is the number of the value in the Compact's arena, NoValue
	// when there is none (a read of an unwritten resource).
	Value    uint32
	Resource uint32 // the number of the resource name (Compact.ResourceName)
	Process  uint32 // the number of the process id (Compact.ProcessID)
	Status   Status
	flags    opFlags
	// span is CompleteIndex-InvokeIndex: 0 when the operation never
	// completed (indexes strictly increase, so a completion is never at
	// span 0), spanFar when it does not fit and Compact.far holds it.
	span uint16
}

// NoValue is CompactOp.Value when the operation has no value.
const NoValue uint32 = 0

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
func (o *CompactOp) HasValue() bool { return o.Value != NoValue }

// Initial reports whether o is the state before the run (Operation.Initial).
func (o *CompactOp) Initial() bool { return o.flags&flagInitial != 0 }

// F returns FWrite or FRead.
func (o *CompactOp) F() string {
	if o.IsWrite() {
		return FWrite
	}
	return FRead
}

// Checkable reports whether a checker must judge o: model.Checkable for
// the compact form (it cannot live in model, which sits above).
func (o *CompactOp) Checkable() bool {
	return o.Status != StatusFailed && (o.IsWrite() || o.Status != StatusUnknown)
}

// Compact is a paired history in the compact form: the operations in order
// of invocation, and the tables their numbers index. `fencecheck check`
// reads a history into it and never holds the Operations of the whole
// history; Expand gives them back for the few a person reads about (a
// violation's resource, a report).
type Compact struct {
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
	// (Compress of a sub-history); nil otherwise.
	ids []int

	Others    []Event // lease and nemesis events, in history order
	Events    int     // as History.Events
	Format    int     // as History.Format
	Truncated bool    // as History.Truncated
	Errors    ErrorSummary
}

// ID returns the ID of the operation at position k.
func (c *Compact) ID(k int) int {
	if c.ids != nil {
		return c.ids[k]
	}
	return k
}

// ResourceName returns the name of resource number r.
func (c *Compact) ResourceName(r uint32) string { return c.resources.list[r] }

// Resources returns the number of distinct resource names.
func (c *Compact) Resources() int { return len(c.resources.list) }

// ResourceNumber returns the number of a resource name, if any operation
// has it.
func (c *Compact) ResourceNumber(name string) (uint32, bool) {
	r, ok := c.resources.index[name]
	return r, ok
}

// ProcessID returns the process id of process number p.
func (c *Compact) ProcessID(p uint32) int { return c.processes[p] }

// Value returns the value of op ("" when it has none). The string shares
// the arena's bytes: it costs no allocation.
func (c *Compact) Value(op *CompactOp) string { return c.values.get(op.Value) }

// CompleteIndex returns the index of op's completion, -1 when it never
// completed.
func (c *Compact) CompleteIndex(k int) int64 {
	op := &c.Ops[k]
	switch op.span {
	case 0:
		return -1
	case spanFar:
		return c.far[int32(k)]
	}
	return op.InvokeIndex + int64(op.span)
}

// Trace returns the trace of the operation at position k, "" for none.
func (c *Compact) Trace(k int) string {
	if k < len(c.traces) {
		return c.values.get(c.traces[k])
	}
	return ""
}

// Operation returns the operation at position k in the full form.
func (c *Compact) Operation(k int) Operation {
	op := &c.Ops[k]
	return Operation{
		ID: c.ID(k), Process: c.processes[op.Process], F: op.F(), Resource: c.ResourceName(op.Resource),
		Token: op.Token, HasToken: op.HasToken(), Value: c.Value(op), HasValue: op.HasValue(),
		Status: op.Status, Call: op.Call, Return: op.Return,
		InvokeIndex: op.InvokeIndex, CompleteIndex: c.CompleteIndex(k), Initial: op.Initial(), Trace: c.Trace(k),
	}
}

// Expand returns the operations keep selects, in the full form and in
// history order; keep nil selects all.
func (c *Compact) Expand(keep func(k int) bool) []Operation {
	n := len(c.Ops)
	if keep != nil {
		// Counted first, so that the operations are allocated once:
		// growing a slice of a million of them copies it over and over.
		n = 0
		for k := range c.Ops {
			if keep(k) {
				n++
			}
		}
	}
	out := make([]Operation, 0, n)
	for k := range c.Ops {
		if keep == nil || keep(k) {
			out = append(out, c.Operation(k))
		}
	}
	return out
}

// ExpandResources returns the operations of the named resources in the
// full form, in history order: what explaining and shrinking a violation
// need of a history, which they judge one resource at a time.
func (c *Compact) ExpandResources(names []string) []Operation {
	want := make([]bool, c.Resources())
	found := false
	for _, n := range names {
		if r, ok := c.ResourceNumber(n); ok {
			want[r], found = true, true
		}
	}
	if !found {
		return nil
	}
	return c.Expand(func(k int) bool { return want[c.Ops[k].Resource] })
}

// History returns the whole history in the full form.
func (c *Compact) History() *History {
	return &History{Operations: c.Expand(nil), Others: c.Others, Events: c.Events, Format: c.Format,
		Truncated: c.Truncated, Errors: c.Errors}
}

// Compress returns ops in the compact form, with their IDs. The checkers
// work on the compact form; this is how they judge operations built in
// memory (tests, the shrinker's sub-histories).
func Compress(ops []Operation) *Compact {
	c := &Compact{Ops: make([]CompactOp, 0, len(ops))}
	for i := range ops {
		op := &ops[i]
		if op.ID != i && c.ids == nil {
			c.ids = make([]int, i, len(ops))
			for j := range i {
				c.ids[j] = j
			}
		}
		if c.ids != nil {
			c.ids = append(c.ids, op.ID)
		}
		x := CompactOp{Call: op.Call, Return: op.Return, Token: op.Token, InvokeIndex: op.InvokeIndex,
			Resource: c.resources.number(op.Resource), Process: c.process(op.Process), Status: op.Status}
		if op.HasValue {
			x.Value = c.values.add(op.Value)
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
		c.Ops = append(c.Ops, x)
		k := len(c.Ops) - 1
		c.setComplete(k, op.CompleteIndex)
		if op.Trace != "" {
			c.setTrace(k, op.Trace)
		}
	}
	return c
}

// process returns the number of process id p, numbering it if it is new.
func (c *Compact) process(p int) uint32 {
	if n, ok := c.procIndex.get(p); ok {
		return uint32(n)
	}
	n := len(c.processes)
	c.processes = append(c.processes, p)
	c.procIndex.set(p, int64(n))
	return uint32(n)
}

// setComplete records the completion index of the operation at position k.
func (c *Compact) setComplete(k int, index int64) {
	op := &c.Ops[k]
	if index < 0 {
		op.span = 0
		return
	}
	if d := index - op.InvokeIndex; d > 0 && d < spanFar {
		op.span = uint16(d)
		return
	}
	op.span = spanFar
	if c.far == nil {
		c.far = make(map[int32]int64)
	}
	c.far[int32(k)] = index
}

// setTrace records the trace of the operation at position k.
func (c *Compact) setTrace(k int, trace string) {
	if len(c.traces) <= k {
		c.traces = slices.Grow(c.traces, max(k+1, cap(c.Ops))-len(c.traces))[:k+1]
	}
	c.traces[k] = c.values.add(trace)
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

// CompressHistory returns h in the compact form.
func CompressHistory(h *History) *Compact {
	c := Compress(h.Operations)
	c.Others, c.Events, c.Format, c.Truncated, c.Errors = h.Others, h.Events, h.Format, h.Truncated, h.Errors
	return c
}
