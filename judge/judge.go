package judge

import (
	"context"
	"fmt"
	"runtime"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

// History is a recorded history in either of its forms: the full one a
// run holds, or the compact one a large file is read into
// (histories.ReadCompactFile). Judge turns the full form into the compact
// one at once, and nothing past that line knows there were two.
type History interface {
	*histories.History | *histories.Compact
}

// Judge judges a recorded history: it checks the operations against the
// model and the issuer's grants against its invariant, measures what the
// history exercised and the evidence it gives, words each violation,
// shrinks the first to a minimal counterexample, and applies the rules
// (rules.go) that turn all of it into one verdict.
//
// ctx bounds the check and the shrinking; a cancelled ctx is an error,
// not a verdict. A run that was interrupted is judged all the same, on
// what it recorded (Options.Stopped): its caller passes a context that
// the interruption did not cancel.
//
// h is not changed. A caller that judges a large compact history and
// keeps no other reference to it lets Judge free it once the violating
// resources are copied out: `fencecheck check` explains a violation in
// ten million operations in the memory of the one resource.
func Judge[H History](ctx context.Context, h H, o Options) (Report, error) {
	c := compact(h)
	checked, err := check.CheckHistory(ctx, c, o.Check)
	if err != nil {
		return Report{}, fmt.Errorf("check the history: %w", err)
	}
	cov, exclusive := measure(c, o.IssuerFaults)
	r := Report{Counts: c.Count(), Coverage: cov, Power: powerOf(cov), Evidence: c.Evidence(), ReceiverLog: o.ReceiverLog}
	if o.RequireExclusive {
		r.Exclusive = exclusive
	}
	for _, n := range checked.Notes {
		r.Notes = append(r.Notes, n.String())
	}
	// Explaining and shrinking judge one resource at a time, so they get
	// the violating resources' operations in the full form, and nothing
	// else of a history that may hold millions of operations.
	operations, others := len(c.Ops), c.Others
	violating := c.ExpandResources(checked.Blamed())
	hints := gatherHints(c, violating, o.CrashFaults)
	if len(violating) > 0 {
		// The compact history and the checker's buffers are garbage
		// now, unless the caller holds them; collected before
		// explaining, their memory serves it: fencecheck check on the
		// 1,000,000-operation file with a late stale read peaked at
		// 590-730 MB without this collection, 480-570 MB with it
		// (docs/performance.md has the command).
		c = nil
		runtime.GC()
	}
	r.Check = explain.Explain(violating, checked, o.Check)
	r.Findings = findings(&r, hints)
	r.Minimal, err = shrinkFirst(ctx, &histories.History{Operations: violating, Others: others}, r.Check, r.shrinkTarget(), o.Check, o.ShrinkTimeout)
	if err != nil {
		return Report{}, err
	}
	if r.Minimal != nil {
		r.Minimal.From = operations
	}
	d := decide(&r, &o)
	r.Verdict, r.Gate, r.Reason = d.verdict, d.gate, d.reason
	return r, nil
}

// compact returns h in the compact form.
func compact[H History](h H) *histories.Compact {
	switch h := any(h).(type) {
	case *histories.Compact:
		return h
	case *histories.History:
		return histories.CompressHistory(h)
	}
	panic("judge: unreachable: a History is one of two forms")
}
