package check

// When the sweep meets a constraint it cannot meet, the fast checker
// blames the operations the failing times come from (Blame), in the roles
// of the reason; package explain words them. It names operations by ID,
// and adds what only the checker knows cheaply: which read showed that a
// write of unknown outcome took effect.

// id returns the ID of the operation at position k of the history, or -1.
func (pb *fastProblem) id(k int32) int {
	if k < 0 {
		return -1
	}
	return pb.c.Operation(int(k)).ID
}

// blame returns a blame for reason with no roles filled.
func blame(reason Reason) *Blame {
	return &Blame{Reason: reason, Op: -1, Other: -1, Seen: -1, OtherSeen: -1,
		Order: [2]OrderBound{{-1, -1}, {-1, -1}}}
}

// writeAt returns the record of the write at position k of the history,
// or nil. It scans: it is called only for a violation.
func (pb *fastProblem) writeAt(k int32) *fastWrite {
	for i := range pb.all {
		if pb.all[i].op == k {
			return &pb.all[i]
		}
	}
	return nil
}

// observer returns the position of a read that shows w took effect, the
// one that returned first, or -1.
func (w *fastWrite) observer() int32 {
	if w.beforeOp >= 0 {
		return w.beforeOp
	}
	return w.afterOp
}

// seen is observer for the write at position k, when it is forced.
func (pb *fastProblem) seen(k int32) int {
	if w := pb.writeAt(k); w != nil && w.forced {
		return pb.id(w.observer())
	}
	return -1
}

// readBlame: the read at position k returned a value or token that no
// write it can have observed explains.
func (pb *fastProblem) readBlame(k int32) *Blame {
	b := blame(ReasonRead)
	b.Op = pb.id(k)
	return b
}

func (pb *fastProblem) strictZeroBlame(w *fastWrite) *Blame {
	b := blame(ReasonTokenZero)
	b.Op, b.Seen = pb.id(w.op), pb.id(w.observer())
	return b
}

func (pb *fastProblem) strictTwiceBlame(x, y *fastWrite) *Blame {
	b := blame(ReasonTokenTwice)
	b.Op, b.Other, b.Seen, b.OtherSeen = pb.id(x.op), pb.id(y.op), pb.id(x.observer()), pb.id(y.observer())
	return b
}

// futureReadBlame: a forced write can only have taken effect after the
// read that bounds it (hi) had returned.
func (pb *fastProblem) futureReadBlame(hi bound) *Blame { return pb.readBlame(hi.op) }

// conflictBlame: x and y share a token and neither can take effect
// first: push(x) > hi(y) and push(y) > hi(x).
func (pb *fastProblem) conflictBlame(x, y *fastWrite) *Blame {
	b := blame(ReasonConflict)
	b.Op, b.Other, b.Seen, b.OtherSeen = pb.id(x.op), pb.id(y.op), pb.id(x.observer()), pb.id(y.observer())
	b.Order = [2]OrderBound{
		{Hi: pb.id(y.hi().op), Push: pb.id(x.push().op)},
		{Hi: pb.id(x.hi().op), Push: pb.id(y.push().op)},
	}
	return b
}

// orderBlame: lo comes from a write with a lower token (its invocation,
// or a read of it) and hi from a write with a higher token (its return,
// or a read of it), and lo > hi.
func (pb *fastProblem) orderBlame(lo, hi bound) *Blame {
	b := blame(ReasonOrder)
	b.Op, b.Other, b.Seen = pb.id(lo.op), pb.id(hi.op), pb.seen(lo.op)
	return b
}

// lateRejectionBlame: the rejection rj returned before every state's next
// write could take effect; lost is the last state it discarded.
func (pb *fastProblem) lateRejectionBlame(rj *fastReject, lost fastState) *Blame {
	b := blame(ReasonLateRejection)
	b.Op, b.Other, b.OtherSeen = pb.id(rj.op), pb.id(lost.next.op), pb.seen(lost.next.op)
	return b
}

// unjustifiedBlame: the rejection a state still waits for could not be
// justified in time.
func (pb *fastProblem) unjustifiedBlame(s fastState) *Blame {
	b := blame(ReasonUnjustified)
	b.Op = pb.id(s.due.op)
	return b
}
