package check

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// checkPorcupine judges ops with porcupine, the reference checker. Each
// resource is an independent register, so resources are checked in
// parallel and a violation in one does not hide the others. Porcupine
// names no operation: a violating resource is blamed as a whole
// (ReasonNoOrder). ctx is looked at before each resource.
func checkPorcupine(ctx context.Context, ops []histories.Operation, opts Options) (Result, error) {
	start := time.Now()
	groups, stats := model.Prepare(ops, opts.Kind, opts.Policy)
	res := Result{
		Checker:      "porcupine",
		Model:        opts.Kind.String(),
		Policy:       opts.Policy.String(),
		Resources:    len(groups),
		CappedWrites: stats.Capped,
		DroppedWrite: stats.Dropped,
	}
	var deadline time.Time
	if opts.Timeout > 0 {
		deadline = start.Add(opts.Timeout)
	}
	m := model.Porcupine(opts.Kind, opts.Policy)
	verdicts := make([]porcupine.CheckResult, len(groups))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				verdicts[i] = checkGroup(m, groups[i], deadline)
			}
		}()
	}
	var cancelled error
dispatch:
	for i := range groups {
		if cancelled = ctx.Err(); cancelled != nil {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			cancelled = ctx.Err()
			break dispatch
		}
	}
	close(next)
	if cancelled == nil {
		wg.Wait()
	}
	if cancelled != nil {
		// The searches under way cannot be stopped; they end at their
		// deadline, and nothing waits for them.
		return Result{}, fmt.Errorf("check: porcupine: %w", cancelled)
	}

	for i, v := range verdicts {
		switch v {
		case porcupine.Illegal:
			res.Blames = append(res.Blames, Blame{Resource: groups[i].Resource, Reason: ReasonNoOrder, Op: -1, Other: -1, Seen: -1, OtherSeen: -1})
		case porcupine.Unknown:
			res.TimedOut = append(res.TimedOut, groups[i].Resource)
		}
	}
	switch {
	case len(res.Blames) > 0:
		res.Verdict = Violated
	case len(res.TimedOut) > 0:
		res.Verdict = Inconclusive
	default:
		res.Verdict = Held
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// checkGroup judges one resource's prepared operations with porcupine
// against m, by deadline (zero: none); past it the answer is Unknown.
func checkGroup(m porcupine.Model, g model.Group, deadline time.Time) porcupine.CheckResult {
	var timeout time.Duration
	if !deadline.IsZero() {
		timeout = time.Until(deadline)
		if timeout <= 0 {
			return porcupine.Unknown
		}
	}
	return porcupine.CheckOperationsTimeout(m, model.ToPorcupine(g.Ops), timeout)
}
