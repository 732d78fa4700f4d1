package check

import "github.com/fencecheck/fencecheck/model"

// check sweeps the writes and rejections in token order, the order in which
// writes take effect, keeping the front of states that are still possible.
// It returns nil when some state survives with no rejection left waiting,
// and otherwise the violation.
func (pb *fastProblem) check() *Blame {
	if pb.fail != nil {
		return pb.fail
	}
	front := fastFront{states: []fastState{{next: pb.initial, due: nothingDue}}}
	wi, ri := 0, 0
	for wi < len(pb.writes) || ri < len(pb.rejects) {
		token := pb.nextToken(wi, ri)
		// A rejection of token t needs a write with a token of t or
		// above to take effect before it, under either policy (see
		// Policy.MayReject): the writes of token t can justify it, so
		// it waits before them.
		if f := pb.rejectAll(&front, &ri, token); f != nil {
			return f
		}
		wj := wi
		for wj < len(pb.writes) && pb.writes[wj].token == token {
			wj++
		}
		if f := pb.sweepGroup(&front, pb.writes[wi:wj]); f != nil {
			return f
		}
		wi = wj
	}
	if s := front.last(); s.due.at != nothingDue.at {
		return pb.unjustifiedBlame(s)
	}
	return nil
}

func (pb *fastProblem) nextToken(wi, ri int) uint64 {
	switch {
	case wi == len(pb.writes):
		return pb.rejects[ri].token
	case ri == len(pb.rejects):
		return pb.writes[wi].token
	}
	return min(pb.writes[wi].token, pb.rejects[ri].token)
}

// rejectAll makes the front wait for the rejections of token.
func (pb *fastProblem) rejectAll(front *fastFront, ri *int, token uint64) *Blame {
	for ; *ri < len(pb.rejects) && pb.rejects[*ri].token == token; *ri++ {
		rj := &pb.rejects[*ri]
		if token == 0 {
			continue // the initial highest token, 0, already justifies it
		}
		if lost := front.reject(rj.ret()); front.empty() {
			return pb.lateRejectionBlame(rj, lost)
		}
	}
	return nil
}

// sweepGroup moves the front past the writes of one token.
func (pb *fastProblem) sweepGroup(front *fastFront, group []fastWrite) *Blame {
	if len(group) == 0 {
		return nil
	}
	nf := 0
	for nf < len(group) && group[nf].forced {
		nf++
	}
	forced, optional := group[:nf], group[nf:]
	if pb.policy == model.Strict {
		// Under strict, tokens take effect strictly increasing from the
		// initial 0: a token-0 write or a second write of a token can
		// never take effect.
		switch {
		case nf > 0 && group[0].token == 0:
			return pb.strictZeroBlame(&forced[0])
		case nf > 1:
			return pb.strictTwiceBlame(&forced[0], &forced[1])
		case nf == 1 || group[0].token == 0:
			optional = nil
		}
	}
	if nf == 0 {
		pb.sweepOptional(front, optional)
		return nil
	}
	return pb.sweepForced(front, forced, optional)
}

// sweepOptional offers writes that may or may not have taken effect. Taking
// one only makes sense as the first of its token (it justifies the waiting
// rejections; later ones of the same token would only add constraints), so
// the front gains at most one state: the earliest next among the ways to
// take one of them.
func (pb *fastProblem) sweepOptional(front *fastFront, optional []fastWrite) {
	best := bound{nothingDue.at, -1}
	for i := range optional {
		u := &optional[i]
		k := front.firstDueBy(u.call)
		if k == len(front.states) || front.states[k].next.at > u.ret {
			continue
		}
		if next := later(front.states[k].next, u.lo()); next.at < best.at {
			best = next
		}
	}
	if best.at != nothingDue.at {
		front.add(best)
	}
}

// sweepForced moves the front past writes that certainly took effect:
// every state must take them, so the front collapses to one state, from
// the earliest state that can (see fastGroup). An unknown write of the same
// token may take effect first, to justify waiting rejections in time.
func (pb *fastProblem) sweepForced(front *fastFront, forced, optional []fastWrite) *Blame {
	g := pb.summarize(forced)
	if g.fail != nil {
		return g.fail
	}
	var cover fastCover
	if len(optional) > 0 {
		cover = pb.newCover(optional)
	}
	late := -1 // the first state that could not justify its rejections in time
	for k, s := range front.states {
		if s.next.at > g.earliestHi.at {
			// States are sorted by next: none of the rest can either.
			if late < 0 {
				return pb.orderBlame(s.next, g.earliestHi)
			}
			break
		}
		if g.firstLo.at <= s.due.at || cover.earliest(s.next.at).at <= min(s.due.at, g.earliestHi.at) {
			front.reset(fastState{next: later(s.next, g.latestPush), due: nothingDue})
			return nil
		}
		if late < 0 {
			late = k
		}
	}
	return pb.unjustifiedBlame(front.states[late])
}
