package models

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// CheckFast judges a fenced-register history exactly, in O(n log n) per
// resource, where porcupine searches an exponential space. It needs every
// value to be written at most once per resource, so that a read names the
// write it observed; histories that fencecheck generates have that.
//
// # Why the problem is small
//
// Under both policies the highest accepted token is the token of the last
// write that took effect, so the state after any prefix of a linearization
// is "the last write that took effect" (or none). Reads and rejections
// change nothing. Writes that take effect must do so in increasing token
// order (strict) or non-decreasing order (accept-equal), so their order is
// forced up to writes that share a token. A read's value names its write
// w: it must be placed after w and before the next write that takes effect.
// A rejection of token t needs some write with a blocking token (≥ t strict,
// > t accept-equal) to take effect before it; as tokens only grow, that is
// the first such write. A write with unknown outcome may take effect or
// not; one whose value was read did.
//
// # From orders to times
//
// With closed intervals, a total order is a linearization iff each
// operation can be given a point in [Call, Return], non-decreasing along
// the order. Given the points x(w) of the writes that take effect, a read
// of w fits iff its Call ≤ x(next write) and x(w) ≤ its Return, and a
// rejection fits iff x(first blocking write) ≤ its Return. So the whole
// question is about the writes' points: each has a lower bound (its Call;
// for the write after w, also the Calls of w's reads), an upper bound (its
// Return; the Returns of its reads), and rejections add upper bounds on the
// first write of a token range. Taking every point as early as its lower
// bounds allow is never worse.
//
// # The sweep
//
// Sweeping writes and rejections in token order, everything that matters
// for the rest of the sweep is a pair (next, due): the earliest the next
// write can take effect, and the earliest Return among rejections still
// waiting for a blocking write. A pair with smaller next and larger due is
// at least as good, so only the Pareto front is kept (fastFront).
// Rejections lower the dues and discard states whose next is too late.
// Unknown writes that no read observed (optional) add at most one state per
// token: taking one is only useful as the first of its token, to unblock
// waiting rejections, and costs nothing else than moving next to its
// Call. Forced writes (accepted, or read) are taken by every state, so the
// front collapses to the best state that can take them; for several forced
// writes of one token (accept-equal) fastGroup shows that the group is
// feasible iff no two of them each need the other first, and that what it
// hands on does not depend on their order. At the end, a state must be
// waiting for nothing. Each step is exact, so the verdict is.
//
// Sorting dominates: O(n log n) time and O(n) memory per resource.
// Resources are checked in parallel, at most GOMAXPROCS at a time.
// opts.Timeout is not needed and ignored.
//
// CheckFast returns an error wrapping ErrFastPrecondition when it cannot
// judge the history: a value written twice within a resource, or a model
// other than the fenced register. The caller should then use
// CheckPorcupine.
func CheckFast(ops []histories.Operation, opts Options) (Result, error) {
	start := time.Now()
	if opts.Kind != KindFenced {
		return Result{}, fmt.Errorf("%w: the %s model is not supported", ErrFastPrecondition, opts.Kind)
	}
	// The groups, filter and fencing cap are Prepare's (the same code),
	// so both checkers judge the same intervals; but as compact records,
	// collected and checked in parallel.
	resources := collectFast(ops)
	res := Result{
		Checker:   "fast",
		Model:     opts.Kind.String(),
		Policy:    opts.Policy.String(),
		Resources: len(resources),
	}
	findings := make([]*finding, len(resources))
	stats := make([]CapStats, len(resources))
	errs := make([]error, len(resources))
	parallel(len(resources), func(i int) {
		findings[i], stats[i], errs[i] = checkFastResource(ops, &resources[i], opts.Policy)
	})
	if err := errors.Join(errs...); err != nil {
		return Result{}, err
	}
	for _, st := range stats {
		res.CappedWrites += st.Capped
		res.DroppedWrite += st.Dropped
	}
	for i, f := range findings {
		if f != nil {
			res.Violations = append(res.Violations, f.violation(resources[i].name))
		}
	}
	res.Verdict = Held
	if len(res.Violations) > 0 {
		res.Verdict = Violated
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// ErrFastPrecondition says that CheckFast cannot judge a history and the
// caller should fall back to CheckPorcupine.
var ErrFastPrecondition = errors.New("models: fast checker precondition does not hold")

func checkFastResource(ops []histories.Operation, r *fastResource, p Policy) (*finding, CapStats, error) {
	recs := r.records()
	stats := capRecords(p, recs)
	pb, err := newFastProblem(ops, r.name, recs, p)
	if err != nil {
		return nil, stats, err
	}
	return pb.check(), stats, nil
}

// parallel calls fn(0) … fn(n-1) on at most GOMAXPROCS goroutines.
func parallel(n int, fn func(int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}
