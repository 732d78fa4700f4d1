package models

import (
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

// fastRecord is the part of an operation the fast checker uses: 32 bytes
// instead of 128, a resource's records side by side, so that the checker's
// passes stay in cache. It holds no pointer, so the garbage collector
// neither scans records nor slows down their copies; the value is read
// from the operation, at pos in the history, when it is needed.
type fastRecord struct {
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
}

// collectFast groups the operations a checker must judge (see checkable)
// by resource, in order of the resources' names, as records. It splits the
// history among GOMAXPROCS goroutines; each part of a resource keeps
// history order, and parts are in history order too.
func collectFast(ops []histories.Operation) []fastResource {
	chunks := max(1, min(runtime.GOMAXPROCS(0), len(ops)/4096))
	local := make([][]fastResource, chunks)
	parallel(chunks, func(c int) {
		local[c] = collectChunk(ops, c*len(ops)/chunks, (c+1)*len(ops)/chunks)
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
		}
	}
	slices.SortFunc(all, func(a, b fastResource) int { return strings.Compare(a.name, b.name) })
	return all
}

// collectChunk collects ops[lo:hi] in two passes, the first to size each
// resource's records exactly: growing them copies more than it saves.
func collectChunk(ops []histories.Operation, lo, hi int) []fastResource {
	index := make(map[string]int32)
	var rs []fastResource
	var sizes []int
	which := make([]int32, hi-lo)
	lastName, last := "", int32(-1)
	for i := lo; i < hi; i++ {
		op := &ops[i]
		if !checkable(op) {
			which[i-lo] = -1
			continue
		}
		if last < 0 || op.Resource != lastName {
			g, ok := index[op.Resource]
			if !ok {
				g = int32(len(rs))
				index[op.Resource] = g
				rs = append(rs, fastResource{name: op.Resource})
				sizes = append(sizes, 0)
			}
			lastName, last = op.Resource, g
		}
		which[i-lo] = last
		sizes[last]++
	}
	for g := range rs {
		rs[g].parts = [][]fastRecord{make([]fastRecord, 0, sizes[g])}
	}
	for i, g := range which {
		if g >= 0 {
			rs[g].parts[0] = append(rs[g].parts[0], record(&ops[lo+i], lo+i))
		}
	}
	return rs
}

func record(op *histories.Operation, i int) fastRecord {
	r := fastRecord{token: op.Token, call: op.Call, ret: op.Return, pos: int32(i),
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
// resource's records, with the same code as Prepare.
func capRecords(p Policy, recs []fastRecord) CapStats {
	var writes []capWrite
	for k := range recs {
		if r := &recs[k]; r.kind == kindAccepted || r.kind == kindUnknown {
			writes = append(writes, capWrite{int32(k), r.kind == kindUnknown, r.token, r.ret})
		}
	}
	var st CapStats
	for _, c := range fencingCap(p, writes) {
		r := &recs[c.k]
		if c.limit < r.call {
			r.kind = kindDropped
			st.Dropped++
			continue
		}
		r.ret = c.limit
		st.Capped++
	}
	return st
}
