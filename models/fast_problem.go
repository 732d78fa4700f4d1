package models

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// noBound is the lower bound of nothing: earlier than every time.
const noBound int64 = math.MinInt64

// bound is a time that constrains a linearization point, with the operation
// it comes from (an index into the resource's operations, -1 for none), so
// that a violation can name the operations that make it.
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
	// Bounds that its reads put on it (forced writes only). after is the
	// latest invocation among its reads: the next write to take effect
	// comes after it. before is the earliest return among its reads: the
	// write took effect before it.
	after  bound
	before bound
}

// lo is the earliest the write can take effect; hi the latest.
func (w *fastWrite) lo() bound { return w.call }
func (w *fastWrite) hi(ops []histories.Operation) bound {
	return earlier(bound{ops[w.op].Return, w.op}, w.before)
}

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
	ops     []histories.Operation
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

// newFastProblem indexes g's writes by value, resolves every read to the
// write it observed and collects the bounds reads put on writes. It fails
// with ErrFastPrecondition when a value is written twice, because then a
// read no longer names one write.
func newFastProblem(g Group, p Policy) (*fastProblem, error) {
	pb := &fastProblem{ops: g.Ops, policy: p, initial: bound{noBound, -1}}
	writer, err := indexWrites(g)
	if err != nil {
		return nil, err
	}
	byOp := make([]int32, len(g.Ops)) // op index → position in pb.writes
	for i := range g.Ops {
		op := &g.Ops[i]
		if !op.IsWrite() {
			continue
		}
		switch op.Status {
		case histories.StatusRejected:
			pb.rejects = append(pb.rejects, fastReject{int32(i), op.Token, bound{op.Return, int32(i)}})
		case histories.StatusAccepted, histories.StatusUnknown:
			w := fastWrite{op: int32(i), token: op.Token, forced: op.Status == histories.StatusAccepted,
				call: bound{op.Call, int32(i)}, after: bound{noBound, -1}, before: bound{histories.Infinity, -1}}
			byOp[i] = int32(len(pb.writes))
			pb.writes = append(pb.writes, w)
		}
	}
	for i := range g.Ops {
		if op := &g.Ops[i]; !op.IsWrite() && op.Status == histories.StatusOK {
			pb.read(int32(i), writer, byOp)
		}
	}
	slices.SortFunc(pb.writes, func(a, b fastWrite) int {
		if c := cmp.Compare(a.token, b.token); c != 0 {
			return c
		}
		if a.forced != b.forced {
			if a.forced {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.op, b.op)
	})
	slices.SortFunc(pb.rejects, func(a, b fastReject) int { return cmp.Compare(a.token, b.token) })
	return pb, nil
}

// indexWrites maps each written value to its write.
func indexWrites(g Group) (map[string]int32, error) {
	n := 0
	for i := range g.Ops {
		if g.Ops[i].IsWrite() {
			n++
		}
	}
	writer := make(map[string]int32, n)
	for i := range g.Ops {
		op := &g.Ops[i]
		if !op.IsWrite() {
			continue
		}
		if prev, dup := writer[op.Value]; dup {
			return nil, fmt.Errorf("%w: resource %q: value %q is written by operations #%d and #%d",
				ErrFastPrecondition, g.Resource, op.Value, g.Ops[prev].ID, op.ID)
		}
		writer[op.Value] = int32(i)
	}
	return writer, nil
}

// read applies what read r observed: it names one write, which therefore
// took effect, before r returned and with no other write between it and r.
func (pb *fastProblem) read(r int32, writer map[string]int32, byOp []int32) {
	rd := &pb.ops[r]
	if !rd.HasValue {
		if rd.HasToken && rd.Token != 0 {
			pb.violate(readTokenFinding(rd, nil))
			return
		}
		pb.initial = later(pb.initial, bound{rd.Call, r})
		return
	}
	w, ok := writer[rd.Value]
	if !ok {
		pb.violate(readNowhereFinding(rd))
		return
	}
	wop := &pb.ops[w]
	if wop.Status == histories.StatusRejected {
		pb.violate(readRejectedFinding(rd, wop))
		return
	}
	if rd.HasToken && rd.Token != wop.Token {
		pb.violate(readTokenFinding(rd, wop))
		return
	}
	fw := &pb.writes[byOp[w]]
	fw.forced = true
	fw.after = later(fw.after, bound{rd.Call, r})
	fw.before = earlier(fw.before, bound{rd.Return, r})
}

// violate keeps the violation whose evidence was complete earliest.
func (pb *fastProblem) violate(f *finding) {
	if pb.fail == nil || f.at < pb.fail.at {
		pb.fail = f
	}
}
