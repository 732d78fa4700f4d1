package judge

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
)

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
// h is not changed. A caller that judges a large history and keeps no
// other reference to it lets Judge free it once the violating resources
// are copied out: `fencecheck check` explains a violation in
// ten million operations in the memory of the one resource.
func Judge(ctx context.Context, h *histories.History, o Options) (Report, error) {
	checked, err := check.Check(ctx, h, o.Check)
	if err != nil {
		return Report{}, fmt.Errorf("check the history: %w", err)
	}
	cov, exclusive := measure(h, o.IssuerFaults)
	r := Report{Counts: h.Count(), Coverage: cov, Power: powerOf(cov), Evidence: h.Evidence(), ReceiverLog: o.ReceiverLog}
	if o.RequireExclusive {
		r.Exclusive = exclusive
	}
	for _, n := range checked.Notes {
		r.Notes = append(r.Notes, n.String())
	}
	// Explaining and shrinking judge one resource at a time, so they get
	// the violating resources' operations in the full form, and nothing
	// else of a history that may hold millions of operations.
	operations, others := len(h.Ops), h.Others
	blamed := checked.Blamed()
	if len(blamed) > 0 && len(h.Ops) >= bigHistory {
		// The checker's records are garbage now. Their pages are given
		// back before the violating resources are expanded, rather than
		// kept beside the expansion: on a one-resource history the
		// expansion is as large as they are (docs/performance.md,
		// "Memory per operation").
		debug.FreeOSMemory()
	}
	violating := operationsOf(h, blamed)
	hints := gatherHints(h, violating)
	if len(violating) > 0 {
		// The compact history is garbage now, unless the caller holds
		// it; collected before explaining, its memory serves it:
		// fencecheck check on the 1,000,000-operation file with a late
		// stale read peaked at 590-730 MB without this collection,
		// 480-570 MB with it (docs/performance.md has the command).
		h = nil
		runtime.GC()
	}
	r.Check = explain.Explain(violating, checked, o.Check)
	r.Findings = findings(&r, hints)
	r.Minimal, err = shrinkFirst(ctx, violating, others, r.Check, r.shrinkTarget(), &o)
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

// bigHistory is the number of operations from which Judge gives the
// checker's memory back before it expands a violating resource: below it,
// the memory is too little to matter and the collection would cost more.
const bigHistory = 1 << 18

// operationsOf returns the operations of the named resources in the full
// form, in history order; nil when h has none of them.
func operationsOf(h *histories.History, names []string) []histories.Operation {
	want := make([]bool, h.Resources())
	found := false
	for r := range want {
		if slices.Contains(names, h.ResourceName(uint32(r))) {
			want[r], found = true, true
		}
	}
	if !found {
		return nil
	}
	return h.Expand(func(k int) bool { return want[h.Ops[k].Resource] })
}
