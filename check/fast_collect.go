package check

import (
	"hash/maphash"
	"maps"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/parallel"
	"github.com/fencecheck/fencecheck/model"
)

// fastKind is what a write stands for.
type fastKind uint8

const (
	kindAccepted fastKind = iota
	kindRejected
	kindUnknown
	kindDropped // an unknown write the fencing cap showed to be a no-op
)

// noMatch is what recentWrites.find returns when no write matches.
const noMatch int32 = -1

// fastResource is what collecting keeps of one resource: its writes in
// history order, with the reads already matched to them folded in, and
// the few reads that collecting could not match.
type fastResource struct {
	name   string
	writes []fastWrite
	reads  []fastRead
	// initial is the latest invocation among reads that found the
	// resource unwritten: the first write takes effect after it.
	initial bound
}

// fastRead is a read that collecting left for the problem to match (see
// collectRecords): 40 bytes without a pointer.
type fastRead struct {
	hash     uint64 // of the value
	token    uint64
	call     int64
	ret      int64
	op       int32 // the operation's position in the history
	hasValue bool
	hasToken bool
}

// recentWrites remembers the last writes of a resource while collecting,
// so that a read can be matched with the write it observed while both
// are in cache. It keeps the hashes of their values, not the values: a
// read is hashed once, compared with each entry as an integer, and only
// a match of hashes is confirmed by comparing the strings. Holding no
// pointer also spares every write's entry a write barrier.
type recentWrites struct {
	added   uint // writes added so far; the latest is at (added-1) modulo len(entries)
	entries [8]struct {
		hash uint64
		w    int32 // the write, in the resource's writes
	}
}

// find returns the latest remembered write of value, whose hash is h, or
// noMatch; writes and ops hold the writes' values.
func (r *recentWrites) find(h uint64, value string, writes []fastWrite, ops []histories.Operation) int32 {
	for i := range min(r.added, uint(len(r.entries))) {
		if e := &r.entries[(r.added-1-i)%uint(len(r.entries))]; e.hash == h && ops[writes[e.w].op].Value == value {
			return e.w
		}
	}
	return noMatch
}

func (r *recentWrites) add(h uint64, w int32) {
	e := &r.entries[r.added%uint(len(r.entries))]
	e.hash, e.w = h, w
	r.added++
}

// collectFast groups the operations a checker must judge (see checkable)
// by resource, in order of the resources' names. The history is split into
// chunks stretches, collected in parallel, each in two passes:
// the first numbers each operation's resource and counts its writes, which
// sizes every resource's writes exactly (growing them copied more than the
// second pass costs); the second writes them straight to their places,
// all resources' in one allocation, and matches reads with writes. Its
// per-operation buffers are bufs'.
func collectFast(ops []histories.Operation, bufs *collectBuffers, chunks int) []fastResource {
	chunks = max(1, min(chunks, len(ops)))
	bufs.which = slices.Grow(bufs.which[:0], len(ops))[:len(ops)]
	which := bufs.which // each operation's resource in its stretch, -1 when left out
	local := make([]chunkNames, chunks)
	bounds := func(c int) (int, int) { return c * len(ops) / chunks, (c + 1) * len(ops) / chunks }
	parallel.Run(chunks, func(_, c int) {
		lo, hi := bounds(c)
		local[c] = numberResources(ops[lo:hi], which[lo:hi])
	})

	// Number the resources in order of their names, and give each stretch
	// of each resource its place among the resource's writes.
	rank := make(map[string]int)
	for _, l := range local {
		for _, name := range l.names {
			rank[name] = 0
		}
	}
	names := slices.Sorted(maps.Keys(rank))
	all := make([]fastResource, len(names))
	for r, name := range names {
		rank[name] = r
		all[r] = fastResource{name: name, initial: bound{noBound, -1}}
	}
	global := make([][]int, chunks)   // a stretch's resources, as positions in all
	offset := make([][]int32, chunks) // where a stretch's writes of a resource start, in the resource's
	sizes := make([]int, len(all))
	for c, l := range local {
		global[c] = make([]int, len(l.names))
		offset[c] = make([]int32, len(l.names))
		for g, name := range l.names {
			r := rank[name]
			global[c][g], offset[c][g] = r, int32(sizes[r])
			sizes[r] += l.writes[g]
		}
	}
	total := 0
	for _, n := range sizes {
		total += n
	}
	bufs.writes = slices.Grow(bufs.writes[:0], total)[:total]
	writes := bufs.writes
	for r := range all {
		all[r].writes, writes = writes[:sizes[r]:sizes[r]], writes[sizes[r]:]
	}

	seed := maphash.MakeSeed()
	slots := make([][]resourceSlot, chunks)
	for len(bufs.left) < chunks {
		bufs.left = append(bufs.left, nil)
	}
	parallel.Run(chunks, func(_, c int) {
		lo, hi := bounds(c)
		dst := make([]resourceSlot, len(local[c].names))
		for g := range dst {
			dst[g] = resourceSlot{writes: all[global[c][g]].writes, next: offset[c][g], initial: bound{noBound, -1}}
		}
		bufs.left[c] = collectRecords(ops, lo, hi, which[lo:hi], dst, seed, bufs.left[c][:0])
		slots[c] = dst
	})
	// The reads left over go to their resources, in history order, all
	// in one buffer.
	left := make([]int, len(all)) // how many each resource has
	nleft := 0
	for c := range slots {
		for g := range slots[c] {
			r := &all[global[c][g]]
			r.initial = later(r.initial, slots[c][g].initial)
		}
		for _, l := range bufs.left[c] {
			left[global[c][l.res]]++
		}
		nleft += len(bufs.left[c])
	}
	bufs.allLeft = slices.Grow(bufs.allLeft[:0], nleft)[:nleft]
	reads := bufs.allLeft
	for r := range all {
		all[r].reads, reads = reads[:0:left[r]], reads[left[r]:]
	}
	for c := range slots {
		for _, l := range bufs.left[c] {
			r := &all[global[c][l.res]]
			r.reads = append(r.reads, l.fastRead)
		}
	}
	return all
}

// leftRead is a read that collecting left for newFastProblem, and the
// number of its resource in its stretch.
type leftRead struct {
	fastRead
	res int32
}

// chunkNames is what the first pass learns of a stretch: its resources'
// names in order of appearance, and how many writes each has.
type chunkNames struct {
	names  []string
	writes []int
}

// numberResources sets which[i] to the number of ops[i]'s resource in the
// stretch, or -1 when a checker leaves the operation out.
func numberResources(ops []histories.Operation, which []int32) chunkNames {
	var names resourceNames
	var l chunkNames
	for i := range ops {
		op := &ops[i]
		if !model.Checkable(op) {
			which[i] = -1
			continue
		}
		g, added := names.id(op.Resource)
		if added {
			l.names = append(l.names, op.Resource)
			l.writes = append(l.writes, 0)
		}
		which[i] = g
		if op.F == histories.FWrite {
			l.writes[g]++
		}
	}
	return l
}

// resourceSlot is where the second pass puts one resource's operations of
// a stretch.
type resourceSlot struct {
	writes  []fastWrite // the resource's, all stretches'
	next    int32       // where the next write goes
	recent  recentWrites
	initial bound
}

// collectRecords is the second pass over ops[lo:hi]; it appends the reads
// it leaves over to left and returns it. A read is usually of
// one of the last few writes of its resource: it is matched there, its
// value compared while both values are in cache, and what it says is
// folded into its write at once, which is all the checker needs of it
// (see fastWrite). A read that matches none, or that contradicts its
// write (the write was rejected, or the read reports another token), is
// kept for newFastProblem, which also explains the contradiction; so is a
// read of nothing that reports a token other than 0, which no write
// explains.
func collectRecords(ops []histories.Operation, lo, hi int, which []int32, dst []resourceSlot, seed maphash.Seed, left []leftRead) []leftRead {
	for i := lo; i < hi; i++ {
		g := which[i-lo]
		if g < 0 {
			continue
		}
		op := &ops[i]
		d := &dst[g]
		if op.F == histories.FWrite {
			k := d.next
			d.next++
			kind := kindUnknown
			switch op.Status {
			case histories.StatusAccepted:
				kind = kindAccepted
			case histories.StatusRejected:
				kind = kindRejected
			}
			h := maphash.String(seed, op.Value)
			d.writes[k] = fastWrite{hash: h, token: op.Token, call: op.Call, ret: op.Return,
				afterAt: noBound, beforeAt: histories.Infinity, op: int32(i), afterOp: -1, beforeOp: -1,
				kind: kind, forced: kind == kindAccepted}
			d.recent.add(h, k)
			continue
		}
		var h uint64
		switch {
		case !op.HasValue && (!op.HasToken || op.Token == 0):
			d.initial = later(d.initial, bound{op.Call, int32(i)})
			continue
		case op.HasValue:
			h = maphash.String(seed, op.Value)
			if k := d.recent.find(h, op.Value, d.writes, ops); k != noMatch {
				if w := &d.writes[k]; w.kind != kindRejected && (!op.HasToken || op.Token == w.token) {
					w.observe(op.Call, op.Return, int32(i))
					continue
				}
			}
		}
		left = append(left, leftRead{fastRead{hash: h, token: op.Token, call: op.Call,
			ret: op.Return, op: int32(i), hasValue: op.HasValue, hasToken: op.HasToken}, g})
	}
	return left
}

// resourceNames numbers resource names in order of appearance. Every
// operation needs its resource's number, and a map lookup per operation
// costs more than the rest of the first pass: a small direct-mapped cache,
// indexed by the name's length and last bytes, answers first, and only a
// miss asks the map. Without the cache the first pass takes 2.3 to 2.9
// times as long (BenchmarkCollectFast first-pass, interleaved A/B: 3.13 ms
// against 1.35 ms at 100,000 operations, 364 µs against 125 µs at
// 10,000): at 100,000 operations it saves some 18 ns of the 100 ns an
// operation costs a whole check.
type resourceNames struct {
	index  map[string]int32
	byTail [256]cachedName
}

type cachedName struct {
	name string
	id   int32
	set  bool
}

// id returns the number of name, and whether it is new.
func (n *resourceNames) id(name string) (int32, bool) {
	h := len(name)
	if len(name) > 0 {
		h = h*31 + int(name[len(name)-1])
	}
	if len(name) > 1 {
		h = h*31 + int(name[len(name)-2])
	}
	c := &n.byTail[h&255]
	if c.set && c.name == name {
		return c.id, false
	}
	if n.index == nil {
		n.index = make(map[string]int32)
	}
	id, ok := n.index[name]
	if !ok {
		id = int32(len(n.index))
		n.index[name] = id
	}
	c.name, c.id, c.set = name, id, true
	return id, !ok
}

// capWrites applies the fencing cap (see ApplyFencingCap) to one
// resource's writes, with the same code as Prepare. It has nothing to do
// without unknown writes.
func (r *fastResource) capWrites(p model.Policy, sc *fastScratch) model.CapStats {
	if !slices.ContainsFunc(r.writes, func(w fastWrite) bool { return w.kind == kindUnknown }) {
		return model.CapStats{}
	}
	writes := sc.capWrites[:0]
	defer func() { sc.capWrites = writes }()
	for k := range r.writes {
		if w := &r.writes[k]; w.kind == kindAccepted || w.kind == kindUnknown {
			writes = append(writes, model.CapWrite{K: int32(k), Unknown: w.kind == kindUnknown, Token: w.token, Ret: w.ret})
		}
	}
	var st model.CapStats
	for _, c := range model.FencingCap(p, writes, &sc.CapScratch) {
		w := &r.writes[c.K]
		if !c.Keeps(w.call) {
			w.kind = kindDropped
			st.Dropped++
			continue
		}
		w.ret = c.Limit
		st.Capped++
	}
	return st
}
