package check

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/parallel"
	"github.com/fencecheck/fencecheck/model"
)

// checkFast is the fast checker (see the package documentation), on the
// compact operations of c (histories.CompactOp): it returns an
// *Unsupported error when it cannot judge c.
func checkFast(ctx context.Context, c *histories.History, opts Options) (Result, error) {
	return checkCompactIn(ctx, c, opts, stretches(len(c.Ops)))
}

func stretches(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/4096))
}

// checkFastIn is checkFast on the full form with the history collected in
// the given number of stretches, so that tests can compare any split with
// none.
func checkFastIn(ctx context.Context, ops []histories.Operation, opts Options, chunks int) (Result, error) {
	return checkCompactIn(ctx, histories.FromOperations(ops), opts, chunks)
}

// checkCompactIn is checkFastIn on a History. ctx is looked at between
// the phases and before each resource.
func checkCompactIn(ctx context.Context, c *histories.History, opts Options, chunks int) (Result, error) {
	start := time.Now()
	if opts.Kind != model.KindFenced {
		return Result{}, &Unsupported{Model: opts.Kind}
	}
	if len(c.Ops) > math.MaxInt32 {
		return Result{}, &Unsupported{TooMany: len(c.Ops)}
	}
	bufs := collectPool.Get().(*collectBuffers)
	defer bufs.recycle()
	resources := collectFast(c, bufs, chunks)
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("check: fast: %w", err)
	}
	res := Result{
		Checker:   "fast",
		Model:     opts.Kind.String(),
		Policy:    opts.Policy.String(),
		Resources: len(resources),
	}
	blames := make([]*Blame, len(resources))
	stats := make([]model.CapStats, len(resources))
	errs := make([]error, len(resources))
	scratch := make([]*fastScratch, parallel.Workers(len(resources)))
	for w := range scratch {
		scratch[w] = scratchPool.Get().(*fastScratch)
		defer scratch[w].recycle()
	}
	var stopped atomic.Bool // once ctx is done, the resources left are skipped
	parallel.Run(len(resources), func(w, i int) {
		if stopped.Load() {
			return
		}
		if ctx.Err() != nil {
			stopped.Store(true)
			return
		}
		blames[i], stats[i], errs[i] = checkFastResource(c, &resources[i], opts.Policy, scratch[w])
	})
	if stopped.Load() {
		return Result{}, fmt.Errorf("check: fast: %w", ctx.Err())
	}
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
	for _, b := range blames {
		if b != nil {
			res.Verdict = Violated
			res.Blames = append(res.Blames, *b)
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// checkFastResource judges one resource, and returns its blame when it is
// violated.
func checkFastResource(c *histories.History, r *fastResource, p model.Policy, sc *fastScratch) (*Blame, model.CapStats, error) {
	stats := r.capWrites(p, sc)
	pb, err := newFastProblem(c, r, p, sc)
	if err != nil {
		return nil, stats, err
	}
	b := pb.check()
	if b != nil {
		b.Resource = r.name
	}
	return b, stats, nil
}
