package check

import (
	"math"
	"slices"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
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

// fastWrite is a write of one resource, 64 bytes without a pointer, so
// that a resource's writes sit side by side in cache and the garbage
// collector neither scans them nor slows down their copies. Collecting
// makes it, and folds into it the reads that observed it (observe):
// they are all the checker needs of those reads. The sweep judges the
// writes that may have taken effect (accepted, or unknown).
type fastWrite struct {
	hash  uint64 // of the value (see fastIndex)
	token uint64
	call  int64
	ret   int64 // its return, after the fencing cap
	// Bounds that its reads put on it, which make it forced. after is the
	// latest invocation among its reads: the next write to take effect
	// comes after it. before is the earliest return among its reads: the
	// write took effect before it. Each is a time and the read it comes
	// from (-1 for none).
	afterAt, beforeAt int64
	op                int32 // the operation's position in the history
	afterOp, beforeOp int32
	kind              fastKind
	forced            bool // accepted, or unknown but read: it took effect
}

// observe folds in a read, invoked at call and answered at ret, that
// returned the write's value.
func (w *fastWrite) observe(call, ret int64, op int32) {
	w.forced = true
	if call > w.afterAt {
		w.afterAt, w.afterOp = call, op
	}
	if ret < w.beforeAt {
		w.beforeAt, w.beforeOp = ret, op
	}
}

func (w *fastWrite) after() bound  { return bound{w.afterAt, w.afterOp} }
func (w *fastWrite) before() bound { return bound{w.beforeAt, w.beforeOp} }

// lo is the earliest the write can take effect; hi the latest.
func (w *fastWrite) lo() bound { return bound{w.call, w.op} }
func (w *fastWrite) hi() bound { return earlier(bound{w.ret, w.op}, w.before()) }

// push is the lower bound the write puts on the next write to take effect:
// its own invocation and those of its reads.
func (w *fastWrite) push() bound { return later(w.lo(), w.after()) }

// fastReject is a rejected write: unless its token is 0, some write with
// its token or above must have taken effect before it answered (under
// either policy; see Policy.MayReject). 24 bytes: its return is a time
// and the rejection itself (ret), not a bound of 16 bytes beside op.
type fastReject struct {
	token uint64
	retAt int64
	op    int32
}

// ret is the bound the rejection's answer puts: its return, from itself.
func (rj *fastReject) ret() bound { return bound{rj.retAt, rj.op} }

// fastProblem is one resource's history reduced to what the sweep needs.
// Operations are named by their positions in the history.
type fastProblem struct {
	c       *histories.History // the whole history, for values and IDs
	all     []fastWrite        // the resource's writes, in history order
	policy  model.Policy
	writes  []fastWrite  // those that may have taken effect, sorted by token, forced before optional
	rejects []fastReject // sorted by token
	// initial is the latest invocation among reads that found the
	// resource unwritten: the first write takes effect after it.
	initial bound
	// fail is a violation visible without ordering anything, such as a
	// read of a value nobody wrote.
	fail    *Blame
	failAt  int64 // when fail's evidence was complete: its read's return
	scratch *fastScratch
}

// newFastProblem indexes the resource's writes by value, matches the reads
// that collecting left over with the writes they observed, and sorts the
// writes and rejections by token. It fails with an *Unsupported error when
// a value is written twice, because then a read no longer names one write.
// Its slices are sc's.
func newFastProblem(c *histories.History, res *fastResource, p model.Policy, sc *fastScratch) (*fastProblem, error) {
	pb := &fastProblem{c: c, all: res.writes, policy: p, initial: res.initial, scratch: sc}
	ix := sc.index(len(res.writes))
	for w := range res.writes {
		if prev, dup := ix.insert(c, res.writes, int32(w)); dup {
			k := res.writes[w].op
			return nil, &Unsupported{Resource: res.name, Value: c.Value(&c.Ops[k]), Writes: [2]int{pb.id(res.writes[prev].op), pb.id(k)}}
		}
		if x := &res.writes[w]; x.kind == kindDropped && x.beforeOp >= 0 {
			// A read matched while collecting observed a write that the
			// cap shows cannot have taken effect.
			pb.violate(x.beforeOp)
		}
	}
	for i := range res.reads {
		pb.read(&res.reads[i], &ix)
	}
	// Counted first, so that the rejections are allocated once: growing
	// them left as much garbage as they hold, which the heap grows for.
	n := 0
	for i := range res.writes {
		if res.writes[i].kind == kindRejected {
			n++
		}
	}
	sc.rejects = slices.Grow(sc.rejects[:0], n)
	for i := range res.writes {
		if w := &res.writes[i]; w.kind == kindRejected {
			sc.rejects = append(sc.rejects, fastReject{token: w.token, retAt: w.ret, op: w.op})
		}
	}
	pb.rejects = sc.rejects
	sortByToken(pb.rejects, &sc.rejected, &sc.sort, func(r *fastReject) uint64 { return r.token })
	pb.sortWrites()
	return pb, nil
}

// sortWrites orders the writes that may have taken effect by token, forced
// ones first within a token (sweepGroup relies on it), each kind in history
// order: forced ones are placed before optional ones, then a stable sort by
// token keeps that. It sorts them in place, at the front of pb.all, the
// other writes after them, in any order: only writeAt looks at pb.all from
// then on, and it finds a write wherever it is. A sorted copy of them
// instead cost 64 bytes per write more at the peak of a check (320 MB of
// the 2.8 GB that fencecheck check took on 10,000,000 operations on one
// resource).
//
// The writes that may have taken effect are swapped to the front, which
// keeps their order; the forced ones among them move forward in place and
// only the optional ones go through a buffer. When each kind is in token
// order already, as a recorded history's nearly always are, one merge from
// the back places them, and the buffer holds the optional writes (unknown
// writes no read observed), not the resource's.
func (pb *fastProblem) sortWrites() {
	n, forced := 0, 0
	for i := range pb.all {
		if w := &pb.all[i]; w.kind == kindAccepted || w.kind == kindUnknown {
			if w.forced {
				forced++
			}
			pb.all[n], pb.all[i] = pb.all[i], pb.all[n]
			n++
		}
	}
	ordered := pb.all[:n]
	pb.writes = ordered
	sc := pb.scratch
	sc.sorting = slices.Grow(sc.sorting[:0], n-forced)[:n-forced]
	optional := sc.sorting
	f, o := 0, 0
	inOrder := true // each of the forced and the optional writes by token
	for i := range ordered {
		w := &ordered[i]
		if w.forced {
			inOrder = inOrder && (f == 0 || ordered[f-1].token <= w.token)
			ordered[f] = *w
			f++
			continue
		}
		inOrder = inOrder && (o == 0 || optional[o-1].token <= w.token)
		optional[o] = *w
		o++
	}
	if !inOrder {
		copy(ordered[forced:], optional)
		sortByToken(ordered, &sc.sorting, &sc.sort, func(w *fastWrite) uint64 { return w.token })
		return
	}
	// Merge from the back: a forced write is never overwritten before it
	// is moved, as k >= i; on equal tokens the optional write goes last.
	i, j := forced-1, o-1
	for k := n - 1; j >= 0; k-- {
		if i >= 0 && ordered[i].token > optional[j].token {
			ordered[k] = ordered[i]
			i--
		} else {
			ordered[k] = optional[j]
			j--
		}
	}
}

// read matches a read that collecting left over, and applies what it
// observed: it names one write, which therefore took effect, before the
// read returned and with no other write between them.
func (pb *fastProblem) read(r *fastRead, ix *fastIndex) {
	if !r.hasValue {
		// Collecting leaves only the reads of nothing that report a
		// token other than the initial 0.
		pb.violate(r.op)
		return
	}
	k, ok := ix.lookup(pb.c, pb.all, r.hash, pb.c.Value(&pb.c.Ops[r.op]))
	var w *fastWrite
	if ok {
		w = &pb.all[k]
	}
	if !ok || w.kind == kindDropped || w.kind == kindRejected || r.hasToken && r.token != w.token {
		pb.violate(r.op)
		return
	}
	w.observe(r.call, r.ret, r.op)
}

// violate blames the read at position k, unless a read whose evidence was
// complete earlier (it returned first) is blamed already.
func (pb *fastProblem) violate(k int32) {
	if at := pb.c.Ops[k].Return; pb.fail == nil || at < pb.failAt {
		pb.fail, pb.failAt = pb.readBlame(k), at
	}
}
