package models

import (
	"runtime"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/histories"
)

// CheckPorcupine judges ops with porcupine, the reference checker. Each
// resource is an independent register, so resources are checked in
// parallel and a violation in one does not hide the others.
func CheckPorcupine(ops []histories.Operation, opts Options) Result {
	start := time.Now()
	groups, stats := Prepare(ops, opts)
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
	model := Model(opts)
	verdicts := make([]porcupine.CheckResult, len(groups))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				verdicts[i] = checkGroup(model, groups[i], deadline)
			}
		}()
	}
	for i := range groups {
		next <- i
	}
	close(next)
	wg.Wait()

	for i, v := range verdicts {
		switch v {
		case porcupine.Illegal:
			g := groups[i]
			res.Violations = append(res.Violations, explain(g, newUniverse(ops, g.Resource, opts), nil, opts).violation(g.Resource))
		case porcupine.Unknown:
			res.TimedOut = append(res.TimedOut, groups[i].Resource)
		}
	}
	switch {
	case len(res.Violations) > 0:
		res.Verdict = Violated
	case len(res.TimedOut) > 0:
		res.Verdict = Inconclusive
	default:
		res.Verdict = Held
	}
	res.Elapsed = time.Since(start)
	return res
}

func checkGroup(model porcupine.Model, g Group, deadline time.Time) porcupine.CheckResult {
	var timeout time.Duration
	if !deadline.IsZero() {
		timeout = time.Until(deadline)
		if timeout <= 0 {
			return porcupine.Unknown
		}
	}
	return porcupine.CheckOperationsTimeout(model, ToPorcupine(g.Ops), timeout)
}
