package check

import (
	"cmp"
	"slices"
	"sort"
)

// fastGroup summarizes the forced writes that carry one token. Under
// strict there is at most one; under accept-equal there can be many, and
// their order among themselves is free.
//
// Each forced write w brings three times: lo, the earliest it can take
// effect (its invocation); hi, the latest (its return, or the earliest
// return among its reads); and push, the earliest the next write can take
// effect (lo and its reads' invocations). Placed in some order after a
// state whose next is B, the writes' earliest points are
//
//	x(w) = max(B, lo(w), push(v) for every v placed before w),
//
// so the order is feasible iff B ≤ hi(w) and lo(w) ≤ hi(w) for every w, and
// push(v) ≤ hi(w) whenever v comes before w. The last condition is a
// precedence: w must come before v whenever push(v) > hi(w). An order
// satisfying all of it exists iff the precedence has no cycle. Its
// neighbourhoods are nested (the writes that must follow w are those whose
// push exceeds hi(w), fewer as hi(w) grows), so a cycle implies one of two:
// the write m with the smallest hi in a cycle must precede every write that
// any write of the cycle must precede, including m's own predecessor p,
// which must precede m. Feasibility is therefore "no two writes each need
// the other first", which a sort and a prefix maximum decide. A write can
// go first iff its push does not exceed the hi of any other. Whatever the
// order, the group hands on
//
//	next = max(B, push(w) for every w),
//
// because the last write's point is at least every earlier push.
type fastGroup struct {
	latestPush bound // max push over the group
	earliestHi bound // min hi over the group
	// firstLo is the earliest lo among writes that can go first (their
	// push does not exceed the hi of any other), which is when the group
	// can first make a write take effect and so justify waiting
	// rejections.
	firstLo bound
	fail    *Blame
}

func (pb *fastProblem) summarize(forced []fastWrite) fastGroup {
	g := fastGroup{latestPush: bound{noBound, -1}, earliestHi: nothingDue, firstLo: nothingDue}
	second := nothingDue // the second smallest hi, for writes that are themselves the smallest
	var argmin int
	for i := range forced {
		w := &forced[i]
		lo, hi := w.lo(), w.hi()
		if lo.at > hi.at {
			g.fail = pb.futureReadBlame(hi)
			return g
		}
		g.latestPush = later(g.latestPush, w.push())
		switch {
		case hi.at < g.earliestHi.at:
			second, g.earliestHi, argmin = g.earliestHi, hi, i
		case hi.at < second.at:
			second = hi
		}
	}
	if len(forced) > 1 {
		if i, j, ok := pb.conflict(forced); ok {
			g.fail = pb.conflictBlame(&forced[i], &forced[j])
			return g
		}
	}
	for i := range forced {
		others := g.earliestHi
		if i == argmin {
			others = second
		}
		if w := &forced[i]; w.push().at <= others.at {
			g.firstLo = earlier(g.firstLo, w.lo())
		}
	}
	return g
}

// conflict finds two writes that each must come before the other:
// push(i) > hi(j) and push(j) > hi(i).
func (pb *fastProblem) conflict(forced []fastWrite) (int, int, bool) {
	n := len(forced)
	byHi := make([]int, n)
	for i := range byHi {
		byHi[i] = i
	}
	his := make([]int64, n)
	for i := range forced {
		his[i] = forced[i].hi().at
	}
	slices.SortFunc(byHi, func(a, b int) int { return cmp.Compare(his[a], his[b]) })
	// best[k] and next[k]: the writes with the largest and second largest
	// push among byHi[:k].
	best, runner := make([]int, n+1), make([]int, n+1)
	best[0], runner[0] = -1, -1
	push := func(i int) int64 {
		if i < 0 {
			return noBound
		}
		return forced[i].push().at
	}
	for k, i := range byHi {
		b, r := best[k], runner[k]
		switch {
		case push(i) > push(b):
			b, r = i, b
		case push(i) > push(r):
			r = i
		}
		best[k+1], runner[k+1] = b, r
	}
	for i := range forced {
		p := push(i)
		// The writes whose hi is below push(i) must come before i.
		k := sort.Search(n, func(k int) bool { return his[byHi[k]] >= p })
		j := best[k]
		if j == i {
			j = runner[k]
		}
		if j >= 0 && push(j) > his[i] {
			return i, j, true
		}
	}
	return 0, 0, false
}

// fastCover answers, for the unknown writes of a token group that has
// forced writes, which one could take effect first, before the forced
// ones, to justify waiting rejections.
type fastCover struct {
	byRet   []fastWrite // by return, latest first
	minCall []bound     // minCall[k]: the earliest invocation among byRet[:k+1]
}

func (pb *fastProblem) newCover(optional []fastWrite) fastCover {
	c := fastCover{byRet: slices.Clone(optional)}
	slices.SortFunc(c.byRet, func(a, b fastWrite) int { return cmp.Compare(b.ret, a.ret) })
	m := bound{nothingDue.at, -1}
	for _, w := range c.byRet {
		m = earlier(m, w.lo())
		c.minCall = append(c.minCall, m)
	}
	return c
}

// earliest returns the earliest invocation among unknown writes that return
// at or after next, that is, that can still take effect after the state.
func (c *fastCover) earliest(next int64) bound {
	k := sort.Search(len(c.byRet), func(k int) bool { return c.byRet[k].ret < next })
	if k == 0 {
		return nothingDue
	}
	return c.minCall[k-1]
}
