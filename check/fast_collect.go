package check

import (
	"hash/maphash"
	"slices"
	"strings"

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
// noMatch; writes and c hold the writes' values.
func (r *recentWrites) find(h uint64, value string, writes []fastWrite, c *histories.History) int32 {
	for i := range min(r.added, uint(len(r.entries))) {
		if e := &r.entries[(r.added-1-i)%uint(len(r.entries))]; e.hash == h && c.Value(&c.Ops[writes[e.w].op]) == value {
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

// collectFast groups the operations a checker must judge (see
// checkable) by resource, in order of the resources' names. The
// history is split into chunks stretches, collected in parallel, each in
// two passes: the first gives each resource of the stretch a number of its
// own and counts its writes, which sizes every resource's writes exactly
// (growing them copied more than the second pass costs); the second writes
// them straight to their places, all resources' in one allocation, and
// matches reads with writes. Its per-operation buffers are bufs'.
func collectFast(c *histories.History, bufs *collectBuffers, chunks int) []fastResource {
	ops := c.Ops
	chunks = max(1, min(chunks, len(ops)))
	local := make([]chunkResources, chunks)
	bounds := func(k int) (int, int) { return k * len(ops) / chunks, (k + 1) * len(ops) / chunks }
	for len(bufs.local) < chunks {
		bufs.local = append(bufs.local, nil)
	}
	parallel.Run(chunks, func(_, k int) {
		lo, hi := bounds(k)
		bufs.local[k] = slices.Grow(bufs.local[k][:0], c.Resources())[:c.Resources()]
		local[k] = numberResources(ops[lo:hi], bufs.local[k])
	})

	// Place the resources in order of their names, and give each stretch
	// of each resource its place among the resource's writes.
	present := make([]bool, c.Resources())
	for _, l := range local {
		for _, r := range l.resources {
			present[r] = true
		}
	}
	var order []uint32
	for r, ok := range present {
		if ok {
			order = append(order, uint32(r))
		}
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(c.ResourceName(a), c.ResourceName(b)) })
	rank := make([]int, c.Resources())
	all := make([]fastResource, len(order))
	for i, r := range order {
		rank[r] = i
		all[i] = fastResource{name: c.ResourceName(r), initial: bound{noBound, -1}}
	}
	global := make([][]int, chunks)   // a stretch's resources, as positions in all
	offset := make([][]int32, chunks) // where a stretch's writes of a resource start, in the resource's
	sizes := make([]int, len(all))
	for k, l := range local {
		global[k] = make([]int, len(l.resources))
		offset[k] = make([]int32, len(l.resources))
		for g, res := range l.resources {
			r := rank[res]
			global[k][g], offset[k][g] = r, int32(sizes[r])
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
	// Every stretch's reads that collecting leaves go to one buffer, each
	// stretch in a region with room for all its reads, so that they are
	// never copied to grow: growing them took a third of collecting
	// (1,000,000 operations on one resource, where the recent writes miss
	// most reads, profiled in fencecheck check).
	base := make([]int, chunks+1)
	for k := range local {
		base[k+1] = base[k] + local[k].reads
	}
	bufs.reads = slices.Grow(bufs.reads[:0], base[chunks])[:base[chunks]]
	var res []int32 // with one resource, every read's is 0
	if len(all) > 1 {
		bufs.readRes = slices.Grow(bufs.readRes[:0], base[chunks])[:base[chunks]]
		res = bufs.readRes
	}
	kept := make([]int, chunks) // how many reads each stretch left
	parallel.Run(chunks, func(_, k int) {
		lo, hi := bounds(k)
		dst := make([]resourceSlot, len(local[k].resources))
		for g := range dst {
			dst[g] = resourceSlot{writes: all[global[k][g]].writes, next: offset[k][g], initial: bound{noBound, -1}}
		}
		var stretchRes []int32
		if res != nil {
			stretchRes = res[base[k]:base[k+1]]
		}
		kept[k] = collectRecords(c, lo, hi, bufs.local[k], dst, seed, bufs.reads[base[k]:base[k+1]], stretchRes)
		slots[k] = dst
	})
	for k := range slots {
		for g := range slots[k] {
			r := &all[global[k][g]]
			r.initial = later(r.initial, slots[k][g].initial)
		}
	}
	all = placeReads(all, bufs, global, base, kept)
	return all
}

// placeReads gives the resources in all the reads that the stretches left,
// each resource's in history order: the stretch k left kept[k] of them at
// the start of its region of bufs.reads, from base[k], with their
// resources' numbers in the stretch in bufs.readRes. With one resource
// the regions are closed up in place; with more, the reads are grouped in
// bufs.allLeft.
func placeReads(all []fastResource, bufs *collectBuffers, global [][]int, base, kept []int) []fastResource {
	nleft := 0
	if len(all) == 1 {
		for k, n := range kept {
			copy(bufs.reads[nleft:], bufs.reads[base[k]:base[k]+n])
			nleft += n
		}
		all[0].reads = bufs.reads[:nleft:nleft]
		return all
	}
	left := make([]int, len(all)) // how many each resource has
	for k, n := range kept {
		for _, g := range bufs.readRes[base[k] : base[k]+n] {
			left[global[k][g]]++
		}
		nleft += n
	}
	bufs.allLeft = slices.Grow(bufs.allLeft[:0], nleft)[:nleft]
	reads := bufs.allLeft
	for r := range all {
		all[r].reads, reads = reads[:0:left[r]], reads[left[r]:]
	}
	for k, n := range kept {
		for i := base[k]; i < base[k]+n; i++ {
			r := &all[global[k][bufs.readRes[i]]]
			r.reads = append(r.reads, bufs.reads[i])
		}
	}
	return all
}

// chunkResources is what the first pass learns of a stretch: its
// resources in order of appearance, how many writes each has, and how
// many reads there are.
type chunkResources struct {
	resources []uint32
	writes    []int
	reads     int
}

// checkable reports whether a checker must judge op: model.Checkable for
// the compact form, which the fast checker reads.
func checkable(op *histories.CompactOp) bool {
	return op.Status != histories.StatusFailed && (op.IsWrite() || op.Status != histories.StatusUnknown)
}

// numberResources numbers the resources of the operations in ops that a
// checker judges, in order of appearance: local[r] is resource r's number
// in the stretch, -1 when it has none.
func numberResources(ops []histories.CompactOp, local []int32) chunkResources {
	for r := range local {
		local[r] = -1
	}
	var l chunkResources
	for i := range ops {
		op := &ops[i]
		if !checkable(op) {
			continue
		}
		g := local[op.Resource]
		if g < 0 {
			g = int32(len(l.resources))
			local[op.Resource] = g
			l.resources = append(l.resources, op.Resource)
			l.writes = append(l.writes, 0)
		}
		if op.IsWrite() {
			l.writes[g]++
		} else {
			l.reads++
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

// collectRecords is the second pass over c.Ops[lo:hi], whose resources
// have the numbers local gives them; it puts the reads it leaves over in
// reads, with their resources' numbers in res at the same places (res nil:
// there is one resource), and returns how many it left. A read is usually of one of the last few writes
// of its resource: it is matched there, its value compared while both
// values are in cache, and what it says is folded into its write at once,
// which is all the checker needs of it (see fastWrite). A read that
// matches none, or that contradicts its write (the write was rejected, or
// the read reports another token), is kept for newFastProblem, which also
// explains the contradiction; so is a read of nothing that reports a
// token other than 0, which no write explains.
func collectRecords(c *histories.History, lo, hi int, local []int32, dst []resourceSlot, seed maphash.Seed, reads []fastRead, res []int32) int {
	n := 0
	for i := lo; i < hi; i++ {
		op := &c.Ops[i]
		if !checkable(op) {
			continue
		}
		g := local[op.Resource]
		d := &dst[g]
		if op.IsWrite() {
			k := d.next
			d.next++
			kind := kindUnknown
			switch op.Status {
			case histories.StatusAccepted:
				kind = kindAccepted
			case histories.StatusRejected:
				kind = kindRejected
			}
			h := maphash.String(seed, c.Value(op))
			d.writes[k] = fastWrite{hash: h, token: op.Token, call: op.Call, ret: op.Return,
				afterAt: noBound, beforeAt: histories.Infinity, op: int32(i), afterOp: -1, beforeOp: -1,
				kind: kind, forced: kind == kindAccepted}
			d.recent.add(h, k)
			continue
		}
		var h uint64
		switch {
		case !op.HasValue() && (!op.HasToken() || op.Token == 0):
			d.initial = later(d.initial, bound{op.Call, int32(i)})
			continue
		case op.HasValue():
			value := c.Value(op)
			h = maphash.String(seed, value)
			if k := d.recent.find(h, value, d.writes, c); k != noMatch {
				if w := &d.writes[k]; w.kind != kindRejected && (!op.HasToken() || op.Token == w.token) {
					w.observe(op.Call, op.Return, int32(i))
					continue
				}
			}
		}
		reads[n] = fastRead{hash: h, token: op.Token, call: op.Call,
			ret: op.Return, op: int32(i), hasValue: op.HasValue(), hasToken: op.HasToken()}
		if res != nil {
			res[n] = g
		}
		n++
	}
	return n
}

// capWrites applies the fencing cap (see ApplyFencingCap) to one
// resource's writes, with the same code as Prepare. It has nothing to do
// without unknown writes.
func (r *fastResource) capWrites(p model.Policy, sc *fastScratch) model.CapStats {
	if !slices.ContainsFunc(r.writes, func(w fastWrite) bool { return w.kind == kindUnknown }) {
		return model.CapStats{}
	}
	n := 0 // counted first, so that the records are allocated once
	for k := range r.writes {
		if w := &r.writes[k]; w.kind == kindAccepted || w.kind == kindUnknown {
			n++
		}
	}
	writes := slices.Grow(sc.capWrites[:0], n)
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
