package models

import (
	"hash/maphash"
	"runtime"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/histories"
)

// fastKind is what a record stands for.
type fastKind uint8

const (
	kindRead fastKind = iota // a read that answered
	kindAccepted
	kindRejected
	kindUnknown
	kindDropped // an unknown write the fencing cap showed to be a no-op
)

// fastRecord is the part of an operation the fast checker uses: 40 bytes
// instead of 128, a resource's records side by side, so that the checker's
// passes stay in cache. It holds no pointer, so the garbage collector
// neither scans records nor slows down their copies. The value is hashed
// while the history is read in order (its bytes are then in cache, and a
// resource's values are not side by side); the string itself is read
// only to confirm a match.
type fastRecord struct {
	hash     uint64 // of the value
	token    uint64
	call     int64
	ret      int64
	pos      int32
	kind     fastKind
	hasValue bool
	hasToken bool
}

// fastResource is one resource's records, in history order: the
// concatenation of parts, one per stretch of the history collected in
// parallel.
type fastResource struct {
	name  string
	parts [][]fastRecord
	count [kindDropped]int // records of each kind, to size what is built from them
}

// collectFast groups the operations a checker must judge (see checkable)
// by resource, in order of the resources' names, as records. It splits the
// history among GOMAXPROCS goroutines; each part of a resource keeps
// history order, and parts are in history order too. values receives
// every operation's value, at its position: confirming a match reads
// strings from this dense copy instead of from operations scattered over
// the history.
func collectFast(ops []histories.Operation, values []string) []fastResource {
	chunks := max(1, min(runtime.GOMAXPROCS(0), len(ops)/4096))
	local := make([][]fastResource, chunks)
	seed := maphash.MakeSeed()
	parallel(chunks, func(c int) {
		local[c] = collectChunk(ops, values, c*len(ops)/chunks, (c+1)*len(ops)/chunks, seed)
	})
	index := make(map[string]int)
	var all []fastResource
	for _, rs := range local {
		for _, r := range rs {
			i, ok := index[r.name]
			if !ok {
				i = len(all)
				index[r.name] = i
				all = append(all, fastResource{name: r.name})
			}
			all[i].parts = append(all[i].parts, r.parts...)
			for k, n := range r.count {
				all[i].count[k] += n
			}
		}
	}
	slices.SortFunc(all, func(a, b fastResource) int { return strings.Compare(a.name, b.name) })
	return all
}

// collectChunk collects ops[lo:hi] in two passes, the first to size each
// resource's records exactly: growing them copies more than it saves.
func collectChunk(ops []histories.Operation, values []string, lo, hi int, seed maphash.Seed) []fastResource {
	var names resourceNames
	var rs []fastResource
	var sizes []int
	which := make([]int32, hi-lo)
	for i := lo; i < hi; i++ {
		op := &ops[i]
		if !checkable(op) {
			which[i-lo] = -1
			continue
		}
		g, added := names.id(op.Resource)
		if added {
			rs = append(rs, fastResource{name: op.Resource})
			sizes = append(sizes, 0)
		}
		which[i-lo] = g
		sizes[g]++
		values[i] = op.Value
	}
	for g := range rs {
		rs[g].parts = [][]fastRecord{make([]fastRecord, 0, sizes[g])}
	}
	for i, g := range which {
		if g >= 0 {
			r := record(&ops[lo+i], lo+i, seed)
			rs[g].parts[0] = append(rs[g].parts[0], r)
			rs[g].count[r.kind]++
		}
	}
	return rs
}

// resourceNames numbers resource names in order of appearance. Every
// operation needs its resource's number; a map lookup per operation cost
// more than the rest of collecting it, so a small direct-mapped cache,
// indexed by the name's length and last bytes, answers first.
type resourceNames struct {
	index map[string]int32
	cache [256]struct {
		name string
		id   int32
		set  bool
	}
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
	c := &n.cache[h&255]
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

func record(op *histories.Operation, i int, seed maphash.Seed) fastRecord {
	r := fastRecord{hash: maphash.String(seed, op.Value), token: op.Token, call: op.Call, ret: op.Return, pos: int32(i),
		hasValue: op.HasValue, hasToken: op.HasToken}
	if op.F == histories.FWrite {
		switch op.Status {
		case histories.StatusAccepted:
			r.kind = kindAccepted
		case histories.StatusRejected:
			r.kind = kindRejected
		default:
			r.kind = kindUnknown
		}
	}
	return r
}

// records returns the resource's records in one slice.
func (r *fastResource) records() []fastRecord {
	if len(r.parts) == 1 {
		return r.parts[0]
	}
	n := 0
	for _, p := range r.parts {
		n += len(p)
	}
	out := make([]fastRecord, 0, n)
	for _, p := range r.parts {
		out = append(out, p...)
	}
	return out
}

// capRecords applies the fencing cap (see ApplyFencingCap) to one
// resource's records, with the same code as Prepare. It has nothing to do
// without unknown writes.
func (r *fastResource) capRecords(p Policy, recs []fastRecord) CapStats {
	if r.count[kindUnknown] == 0 || r.count[kindAccepted] == 0 {
		return CapStats{}
	}
	writes := make([]capWrite, 0, r.count[kindUnknown]+r.count[kindAccepted])
	for k := range recs {
		if rec := &recs[k]; rec.kind == kindAccepted || rec.kind == kindUnknown {
			writes = append(writes, capWrite{int32(k), rec.kind == kindUnknown, rec.token, rec.ret})
		}
	}
	var st CapStats
	for _, c := range fencingCap(p, writes) {
		rec := &recs[c.k]
		if c.limit < rec.call {
			rec.kind = kindDropped
			st.Dropped++
			continue
		}
		rec.ret = c.limit
		st.Capped++
	}
	return st
}
