package models

import (
	"fmt"
	"math"

	"github.com/fencecheck/fencecheck/histories"
)

// noBound is the lower bound of nothing: earlier than every time.
const noBound int64 = math.MinInt64

// bound is a time that constrains a linearization point, with the operation
// it comes from (a record of the resource, -1 for none), so that a
// violation can name the operations that make it.
type bound struct {
	at int64
	op int32
}

func later(a, b bound) bound {
	if b.at > a.at {
		return b
	}
	return a
}

func earlier(a, b bound) bound {
	if b.at < a.at {
		return b
	}
	return a
}

// fastWrite is a write that may have taken effect: accepted, or unknown.
type fastWrite struct {
	op     int32
	token  uint64
	forced bool // accepted, or unknown but read: it took effect
	call   bound
	ret    int64 // its return, after the fencing cap
	// Bounds that its reads put on it (forced writes only). after is the
	// latest invocation among its reads: the next write to take effect
	// comes after it. before is the earliest return among its reads: the
	// write took effect before it.
	after  bound
	before bound
}

// lo is the earliest the write can take effect; hi the latest.
func (w *fastWrite) lo() bound { return w.call }
func (w *fastWrite) hi() bound { return earlier(bound{w.ret, w.op}, w.before) }

// push is the lower bound the write puts on the next write to take effect:
// its own invocation and those of its reads.
func (w *fastWrite) push() bound { return later(w.call, w.after) }

// fastReject is a rejected write: some write whose token blocks it must have
// taken effect before it answered.
type fastReject struct {
	op    int32
	token uint64
	ret   bound
}

// fastProblem is one resource's history reduced to what the sweep needs.
type fastProblem struct {
	ops     []histories.Operation // the whole history, for explanations
	values  []string              // the history's values, by position (see collectFast)
	recs    []fastRecord          // the resource's operations
	policy  Policy
	writes  []fastWrite  // sorted by token, forced before optional
	rejects []fastReject // sorted by token
	// initial is the latest invocation among reads that found the
	// resource unwritten: the first write takes effect after it.
	initial bound
	// fail is a violation visible without ordering anything, such as a
	// read of a value nobody wrote.
	fail *finding
}

// newFastProblem indexes the resource's writes by value, resolves every
// read to the write it observed and collects the bounds reads put on
// writes. It fails with ErrFastPrecondition when a value is written twice,
// because then a read no longer names one write.
func newFastProblem(ops []histories.Operation, values []string, res *fastResource, recs []fastRecord, p Policy) (*fastProblem, error) {
	pb := &fastProblem{ops: ops, values: values, recs: recs, policy: p, initial: bound{noBound, -1}}
	writes := res.count[kindAccepted] + res.count[kindUnknown] // an upper bound, the cap may drop some
	writer := newFastIndex(writes + res.count[kindRejected])
	reads := make([]int32, 0, res.count[kindRead])
	pb.writes = make([]fastWrite, 0, writes)
	pb.rejects = make([]fastReject, 0, res.count[kindRejected])
	for k := range recs {
		r := &recs[k]
		w := int32(len(pb.writes))
		switch r.kind {
		case kindDropped:
			continue
		case kindRead:
			reads = append(reads, int32(k))
			continue
		case kindRejected:
			pb.rejects = append(pb.rejects, fastReject{int32(k), r.token, bound{r.ret, int32(k)}})
			w = -1 - int32(k)
		default: // accepted or unknown
			pb.writes = append(pb.writes, fastWrite{op: int32(k), token: r.token, forced: r.kind == kindAccepted,
				call: bound{r.call, int32(k)}, ret: r.ret, after: bound{noBound, -1}, before: bound{histories.Infinity, -1}})
		}
		if prev, dup := pb.lookup(&writer, int32(k)); dup {
			op := pb.op(int32(k))
			return nil, fmt.Errorf("%w: resource %q: value %q is written by operations #%d and #%d",
				ErrFastPrecondition, res.name, op.Value, pb.writeOp(prev).ID, op.ID)
		}
		pb.insert(&writer, int32(k), w)
	}
	for _, r := range reads {
		pb.read(r, &writer)
	}
	pb.sortWrites()
	sortByToken(pb.rejects, func(r *fastReject) uint64 { return r.token })
	return pb, nil
}

// sortWrites orders the writes by token, forced ones first within a token
// (sweepGroup relies on it), each kind in history order: forced ones are
// moved before optional ones, then a stable sort by token keeps that.
func (pb *fastProblem) sortWrites() {
	forced := 0
	for i := range pb.writes {
		if pb.writes[i].forced {
			forced++
		}
	}
	ordered := make([]fastWrite, len(pb.writes))
	f, o := 0, forced
	for _, w := range pb.writes {
		if w.forced {
			ordered[f] = w
			f++
		} else {
			ordered[o] = w
			o++
		}
	}
	sortByToken(ordered, func(w *fastWrite) uint64 { return w.token })
	pb.writes = ordered
}

// writeOp returns the operation a value of the writer index names.
func (pb *fastProblem) writeOp(w int32) *histories.Operation {
	if w < 0 {
		return pb.op(-1 - w)
	}
	return pb.op(pb.writes[w].op)
}

// read applies what read r observed: it names one write, which therefore
// took effect, before r returned and with no other write between it and r.
func (pb *fastProblem) read(k int32, writer *fastIndex) {
	r := &pb.recs[k]
	if !r.hasValue {
		if r.hasToken && r.token != 0 {
			pb.violate(readTokenFinding(pb.op(k), nil))
			return
		}
		pb.initial = later(pb.initial, bound{r.call, k})
		return
	}
	w, ok := pb.lookup(writer, k)
	switch {
	case !ok:
		pb.violate(readNowhereFinding(pb.op(k)))
	case w < 0:
		pb.violate(readRejectedFinding(pb.op(k), pb.writeOp(w)))
	case r.hasToken && r.token != pb.writes[w].token:
		pb.violate(readTokenFinding(pb.op(k), pb.writeOp(w)))
	default:
		fw := &pb.writes[w]
		fw.forced = true
		fw.after = later(fw.after, bound{r.call, k})
		fw.before = earlier(fw.before, bound{r.ret, k})
	}
}

// op returns the operation of record k, or nil for -1.
func (pb *fastProblem) op(k int32) *histories.Operation {
	if k < 0 {
		return nil
	}
	return &pb.ops[pb.recs[k].pos]
}

// violate keeps the violation whose evidence was complete earliest.
func (pb *fastProblem) violate(f *finding) {
	if pb.fail == nil || f.at < pb.fail.at {
		pb.fail = f
	}
}
