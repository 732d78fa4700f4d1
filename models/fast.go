package models

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
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
// A write takes effect only if it may be accepted at its point
// (Policy.MayAccept): its token above the highest so far under strict, at
// or above it under accept-equal, the highest starting at 0. So writes
// that take effect do so in increasing token order from 1 (strict) or
// non-decreasing order from 0 (accept-equal), the highest accepted token
// is always the token of the last write that took effect, and the state
// after any prefix of a linearization is that write (or none). Reads and
// rejections change nothing. So the order of the writes that take effect
// is forced, except among writes that share a token (accept-equal). A
// read's value names its write w (a read of nothing names the initial
// state; a reported token must be w's, or 0): the read goes after w and
// before the next write that takes effect. A rejection of token t may be
// given at a point iff t is at most the highest token there
// (Policy.MayReject), under both policies alike: accept-equal differs from
// strict only in which writes may take effect, and at an equal token it
// allows both answers, so a rejection needs the same as under strict. That
// is t = 0 (always legal, so ignored), or a write with a token of t or
// above taking effect before it; as tokens only grow, that is the first
// such write, the one that justifies it. A write with unknown outcome may
// take effect or not; one whose value was read did. Accepted writes and
// read unknown writes are forced; the other unknown writes are optional.
//
// # From orders to times
//
// With closed intervals, a total order is a linearization iff each
// operation can be given a point in [Call, Return], non-decreasing along
// the order. Given the points x(w) of the writes that take effect, a read
// of w fits iff its Call ≤ x(next write) and x(w) ≤ its Return, and a
// rejection fits iff x(first justifying write) ≤ its Return. So the
// question is only about the writes' points: each has lower bounds (its
// Call, the previous point, and the Calls of the previous write's reads)
// and upper bounds (its Return, the Returns of its reads, and the Returns
// of the rejections it must justify). All upper bounds are fixed times, so
// taking every point as early as its lower bounds allow is never worse.
//
// # The sweep
//
// Sweeping writes and rejections in token order, the rejections of a
// token before its writes (which can justify them), all that matters for
// the rest of the sweep is a pair (next, due): the earliest the next write
// can take effect, and the earliest Return among rejections still waiting
// for a justifying write. A pair with earlier next and later due leaves
// every choice the other leaves, so only the Pareto front is kept
// (fastFront). A rejection lowers the dues and discards states whose next
// is past its Return. Any write that takes effect justifies every waiting
// rejection, as they all have its token or below. An optional write is
// worth taking only as the first of its token (it justifies the waiting
// rejections; taking more of one token only adds constraints), so a
// token's optional writes add at most one state: from the best state whose
// due is not before the write's Call and whose next is not after its
// Return. Forced writes are taken by every state, so the front collapses
// to the best state that can take them (a same-token optional write may go
// first to justify rejections); for several forced writes of one token,
// fastGroup shows that they can be ordered iff no two of them each need
// the other first, and that the next they hand on does not depend on their
// order. Under strict, a token can take effect once and token 0 never, so
// forced repeats are violations and optional ones are ignored.
//
// # Why it is exact
//
// Sound: a state surviving the sweep with nothing due records which
// writes took effect; their earliest points, with each read and rejection
// placed as above and the other unknown writes as no-ops anywhere in their
// intervals, form a linearization: each write that takes effect may be
// accepted, its token being in order, and each rejection may be given, as
// it follows a write with its token or above or has token 0. Complete: a linearization takes
// some writes in token order with points that meet every bound; by
// induction over the sweep, after each token some kept state is at least
// as good as the linearization's (next no later, due no earlier), because
// every step keeps the best state for each choice the linearization can
// make. So a linearization exists iff a state with nothing due survives.
// The differential test against porcupine (fast_diff_test.go) checks this
// on hundreds of thousands of small histories.
//
// # Cost
//
// Hashing written values, a radix sort of tokens (skipped when they are in
// order already) and the sweep are linear; binary searches and the order
// test of equal-token groups make it O(n log n). The history is read once
// more to size the records: GOMAXPROCS goroutines collect stretches of it,
// writing each resource's writes (64 bytes, no pointer) straight to their
// places, and matching each read, by comparing values while they are in
// cache, with one of the last writes of its resource; what a matched read
// says is folded into its write, so reads cost no memory. The few reads
// not matched there (their write is older, or in another stretch) are
// looked up in an index of hashes. Resources are then checked in parallel,
// in buffers reused across resources and checks. Prepare's filter and
// fencing cap are applied (the same functions), so both checkers judge the
// same intervals. opts.Timeout is not needed and ignored.
//
// CheckFast returns an error wrapping ErrFastPrecondition when it cannot
// judge the history: a value written twice within a resource (by any
// writes, including ones rejected or shown by the cap to be no-ops), or a
// model other than the fenced register. The caller should then use
// CheckPorcupine.
func CheckFast(ops []histories.Operation, opts Options) (Result, error) {
	return checkFast(ops, opts, stretches(ops), false)
}

// checkFastVerdict is CheckFast for the verdict alone: a violation is not
// explained. The shrinker checks many candidates and needs no words.
func checkFastVerdict(ops []histories.Operation, opts Options) (Verdict, error) {
	res, err := checkFast(ops, opts, stretches(ops), true)
	return res.Verdict, err
}

func stretches(ops []histories.Operation) int {
	return max(1, min(runtime.GOMAXPROCS(0), len(ops)/4096))
}

// checkFast is CheckFast with the history collected in the given number of
// stretches, so that tests can compare any split with none; quiet leaves
// violations unexplained.
func checkFast(ops []histories.Operation, opts Options, chunks int, quiet bool) (Result, error) {
	start := time.Now()
	if opts.Kind != KindFenced {
		return Result{}, fmt.Errorf("%w: the %s model is not supported", ErrFastPrecondition, opts.Kind)
	}
	if len(ops) > math.MaxInt32 {
		return Result{}, fmt.Errorf("%w: %d operations, more than records can address", ErrFastPrecondition, len(ops))
	}
	bufs := collectPool.Get().(*collectBuffers)
	defer collectPool.Put(bufs)
	resources := collectFast(ops, bufs, chunks)
	res := Result{
		Checker:   "fast",
		Model:     opts.Kind.String(),
		Policy:    opts.Policy.String(),
		Resources: len(resources),
	}
	findings := make([]*finding, len(resources))
	stats := make([]CapStats, len(resources))
	errs := make([]error, len(resources))
	scratch := make([]*fastScratch, workers(len(resources)))
	for w := range scratch {
		scratch[w] = scratchPool.Get().(*fastScratch)
		defer scratchPool.Put(scratch[w])
	}
	parallel(len(resources), func(w, i int) {
		findings[i], stats[i], errs[i] = checkFastResource(ops, &resources[i], opts.Policy, scratch[w], quiet)
	})
	for _, err := range errs {
		if err != nil {
			return Result{}, err // the first resource, by name, that fast cannot judge
		}
	}
	for _, st := range stats {
		res.CappedWrites += st.Capped
		res.DroppedWrite += st.Dropped
	}
	res.Verdict = Held
	if slices.ContainsFunc(findings, func(f *finding) bool { return f != nil }) {
		res.Verdict = Violated
	}
	if !quiet {
		preferRuleExplanations(opts, findings)
		for i, f := range findings {
			if f != nil {
				res.Violations = append(res.Violations, f.violation(resources[i].name))
			}
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// preferRuleExplanations applies Explain's principle across both sources
// of evidence: the evidence that is complete earliest wins. The sweep finds
// the violation it meets first in token order, which can be a later
// symptom (the stale read after the article's stale write was accepted);
// where one of Explain's rules has evidence complete strictly earlier, its
// finding replaces the witness, so that both checkers tell the article's
// story the same way. It runs only for violating resources.
func preferRuleExplanations(opts Options, findings []*finding) {
	for i, f := range findings {
		if f == nil {
			continue
		}
		// Evidence complete before the witness's only involves
		// operations invoked before it, so the rules see that prefix
		// alone: it gives them the same answers, and keeps them off the
		// rest of the history. The resource's universe has its
		// operations, so the history is not read again. A prefix over
		// the limit is left alone: the witness is exact too, and the
		// rules would only cost time. The rules need no fencing cap:
		// what it shows (a write that can only be a no-op) they ask the
		// universe, with the other questions about the whole history.
		u := f.u
		view := make([]*histories.Operation, 0, len(u.ops))
		for _, k := range u.ops {
			if op := u.at(k); op.Call <= f.at && checkable(op) {
				view = append(view, op)
			}
		}
		if len(view) > ruleExplanationLimit {
			continue
		}
		if g := explainByRules(view, u, nil, opts); g != nil && g.at < f.at {
			g.u = u
			findings[i] = g
		}
	}
}

// ruleExplanationLimit bounds the prefix on which preferRuleExplanations
// applies Explain's rules, so that explaining never dominates checking.
const ruleExplanationLimit = 200_000

// ErrFastPrecondition says that CheckFast cannot judge a history and the
// caller should fall back to CheckPorcupine.
var ErrFastPrecondition = errors.New("models: fast checker precondition does not hold")

func checkFastResource(ops []histories.Operation, r *fastResource, p Policy, sc *fastScratch, quiet bool) (*finding, CapStats, error) {
	stats := r.capWrites(p, sc)
	pb, err := newFastProblem(ops, r, p, sc, quiet)
	if err != nil {
		return nil, stats, err
	}
	f := pb.check()
	if f != nil && !quiet {
		f.u = pb.universe()
	}
	return f, stats, nil
}

// workers is how many goroutines parallel uses for n tasks.
func workers(n int) int { return max(1, min(n, runtime.GOMAXPROCS(0))) }

// parallel calls fn(w, 0) … fn(w, n-1) on workers(n) goroutines, where w
// numbers the goroutine, so that each can have its own buffers.
func parallel(n int, fn func(w, i int)) {
	count := workers(n)
	if count == 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := range count {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(w, i)
			}
		}()
	}
	wg.Wait()
}
