package histgen

import (
	"math/rand/v2"

	"github.com/fencecheck/fencecheck/histories"
)

// Corrupt changes n random answers or intervals in ops, in place. The
// result is often, not always, a violation; a differential test needs both
// and lets the reference checker decide. Values stay unique per write.
func Corrupt(r *rand.Rand, ops []histories.Operation, n int) {
	if len(ops) == 0 {
		return
	}
	for range n {
		o := &ops[r.IntN(len(ops))]
		if o.Status == histories.StatusFailed || o.Initial {
			continue // the state before the run is stated, not answered
		}
		switch r.IntN(4) {
		case 0:
			shrink(r, o)
		case 1:
			if o.IsWrite() {
				o.Token = retoken(r, o.Token)
			} else if o.Status == histories.StatusOK {
				o.Token, o.HasToken = retoken(r, o.Token), r.IntN(4) != 0
			}
		default:
			if o.IsWrite() {
				reanswerWrite(r, o)
			} else if o.Status == histories.StatusOK {
				rereadFrom(r, ops, o)
			}
		}
	}
}

// shrink moves one end of a known operation's interval onto a point inside
// it: fewer orders remain legal.
func shrink(r *rand.Rand, o *histories.Operation) {
	if o.Return == histories.Infinity {
		return
	}
	p := o.Call + r.Int64N(o.Return-o.Call+1)
	if r.IntN(2) == 0 {
		o.Call = p
	} else {
		o.Return = p
	}
}

func retoken(r *rand.Rand, t uint64) uint64 {
	if t > 0 && r.IntN(2) == 0 {
		return t - 1
	}
	return t + 1
}

// reanswerWrite gives a write a different outcome.
func reanswerWrite(r *rand.Rand, o *histories.Operation) {
	switch o.Status {
	case histories.StatusAccepted:
		o.Status = histories.StatusRejected
	case histories.StatusRejected:
		o.Status = histories.StatusAccepted
	case histories.StatusUnknown:
		// A write whose outcome was unknown gets a definite answer; its
		// return is somewhere after its call.
		o.Status = []histories.Status{histories.StatusAccepted, histories.StatusRejected}[r.IntN(2)]
		o.Return = o.Call + r.Int64N(4)
		return
	}
	if r.IntN(4) == 0 {
		// Or the answer is lost: weaker, usually still legal.
		o.Status, o.Return = histories.StatusUnknown, histories.Infinity
	}
}

// rereadFrom makes a read return another write's value on its resource, or
// nothing.
func rereadFrom(r *rand.Rand, ops []histories.Operation, o *histories.Operation) {
	var writes []*histories.Operation
	for i := range ops {
		if ops[i].IsWrite() && ops[i].Resource == o.Resource {
			writes = append(writes, &ops[i])
		}
	}
	if len(writes) == 0 || r.IntN(5) == 0 {
		o.Value, o.HasValue, o.Token = "", false, 0
		return
	}
	w := writes[r.IntN(len(writes))]
	o.Value, o.HasValue, o.Token = w.Value, true, w.Token
}

// BreakStaleRead makes a certain violation: a read that began after a write
// with a higher token had been accepted and had returned now returns the
// value of an accepted write with a lower token, which the register can no
// longer hold under either policy. It reports whether it found such a read;
// it prefers one in the middle of the history.
func BreakStaleRead(ops []histories.Operation) bool {
	return BreakStaleReadFrom(ops, len(ops)/2)
}

// BreakStaleReadFrom is BreakStaleRead preferring the first such read at
// or after ops[from] (wrapping around to the start): from near the end
// plants a late violation, which a checker that reads the history in
// order meets last.
func BreakStaleReadFrom(ops []histories.Operation, from int) bool {
	type acc struct {
		ret   int64
		token uint64
		at    int
	}
	var accepted []acc
	for i := range ops {
		if ops[i].IsWrite() && ops[i].Status == histories.StatusAccepted {
			accepted = append(accepted, acc{ops[i].Return, ops[i].Token, i})
		}
	}
	if len(ops) == 0 {
		return false
	}
	from = min(max(from, 0), len(ops)-1)
	for k := from; k < len(ops)+from; k++ {
		rd := &ops[k%len(ops)]
		if rd.IsWrite() || rd.Status != histories.StatusOK {
			continue
		}
		var newest, oldest *acc
		for j := range accepted {
			a := &accepted[j]
			if ops[a.at].Resource != rd.Resource {
				continue
			}
			if a.ret < rd.Call && (newest == nil || a.token > newest.token) {
				newest = a
			}
			if oldest == nil || a.token < oldest.token {
				oldest = a
			}
		}
		if newest == nil || oldest.token >= newest.token {
			continue
		}
		w := &ops[oldest.at]
		rd.Value, rd.HasValue, rd.Token = w.Value, true, w.Token
		return true
	}
	return false
}

// BreakWrongRejectionFrom makes a certain violation of another kind: an
// accepted write, at or after ops[from] (wrapping around to the start),
// whose token is above that of every other write that may have taken
// effect and was sent before it returned, is answered as rejected. No
// write can justify the rejection under either policy. The write chosen
// is one whose value no read returned, so that the rejection is the only
// thing wrong with it. It reports whether it found such a write.
func BreakWrongRejectionFrom(ops []histories.Operation, from int) bool {
	if len(ops) == 0 {
		return false
	}
	read := make(map[string]bool)
	for i := range ops {
		if !ops[i].IsWrite() && ops[i].HasValue {
			read[ops[i].Resource+"\x00"+ops[i].Value] = true
		}
	}
	mayApply := func(o *histories.Operation) bool {
		return o.IsWrite() && (o.Status == histories.StatusAccepted || o.Status == histories.StatusUnknown)
	}
	// The operations are in order of invocation: the writes sent before
	// ops[i] returned are a prefix of them.
	from = min(max(from, 0), len(ops)-1)
	for k := from; k < len(ops)+from; k++ {
		i := k % len(ops)
		w := &ops[i]
		if !w.IsWrite() || w.Status != histories.StatusAccepted || w.Initial || read[w.Resource+"\x00"+w.Value] {
			continue
		}
		justified := false
		for j := range ops {
			o := &ops[j]
			if o.Call > w.Return {
				break
			}
			if j != i && o.Resource == w.Resource && mayApply(o) && o.Token >= w.Token {
				justified = true
				break
			}
		}
		if !justified {
			w.Status = histories.StatusRejected
			return true
		}
	}
	return false
}
