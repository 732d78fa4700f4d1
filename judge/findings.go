package judge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/termsafe"
)

// The kinds of finding beyond explain's rules (explain.RuleStaleAccepted,
// …), which name the receiver's violations that are not these.
const (
	// FindingIssuer: the token issuer granted a token twice, or one below
	// an earlier grant's: every verdict on the receiver stands on tokens
	// that are void.
	FindingIssuer = "issuer"
	// FindingScope: a read returned a value written to another resource:
	// the receiver does not keep resources apart, and every other finding
	// on those resources may follow from it.
	FindingScope = "scope"
	// FindingRestart: the receiver, after a crash and a restart, accepted
	// or returned what the state it had before the crash forbids: it
	// forgot its state across the restart.
	FindingRestart = "restart"
	// FindingReceiverLog: the receiver's log shows a sign of a bug.
	FindingReceiverLog = "receiver-log"
	// FindingExclusive: writes accepted after their lease had ended,
	// under the exclusive requirement.
	FindingExclusive = "exclusive"
)

// A Finding is one kind of failure a judgement found: what it is, how
// often, and its first example in one line. A person reads the findings
// in order: root causes first (the issuer, scope, a restart), from which
// the findings after them may follow; then the receiver's log; then the
// receiver's violations by kind, the first cause's kind first.
type Finding struct {
	Kind  string `json:"kind"`
	Title string `json:"title"`
	// Count is how many resources show it (the receiver's kinds), or how
	// many grants, writes or log lines.
	Count int `json:"count"`
	// Resources are the first resources it was found on, up to
	// maxNamedResources, in the order of their first evidence.
	Resources []string `json:"resources,omitempty"`
	// First is the first example, in one line.
	First string `json:"first"`
	// RootCause marks a finding that others may follow from.
	RootCause bool `json:"root_cause,omitempty"`
	// example is the first example's position in Check.Violations, -1
	// for a finding that is not a receiver's violation.
	example int
}

// maxNamedResources bounds Finding.Resources.
const maxNamedResources = 10

// Example returns the position in r.Check.Violations of f's first
// example, -1 when f is not about the receiver's history.
func (f *Finding) Example() int { return f.example }

// evidenceHints are what findings need of the history beyond the
// explained violations, gathered while the whole history is at hand.
type evidenceHints struct {
	// foreign maps a read (by operation ID) that returned a value no
	// write of its resource wrote to the resource a write of that value
	// was on.
	foreign map[int]string
	// crashes are the receiver's crashes: from its kill to its restart.
	crashes []window
}

type window struct{ from, to int64 }

// gatherHints looks, in h, for the resources that wrote the values the
// violating resources' reads returned although no write of their own
// resource wrote them, and for the receiver's crashes.
func gatherHints(h *histories.History, violating []histories.Operation) evidenceHints {
	var hints evidenceHints
	written := newWrittenSet(violating)
	want := map[string][]*histories.Operation{} // value → the reads that returned it, none of their resource's writes
	for i := range violating {
		op := &violating[i]
		if !op.IsWrite() && op.HasValue && !op.Initial && !written.has(op.Resource, op.Value) {
			want[op.Value] = append(want[op.Value], op)
		}
	}
	if len(want) > 0 {
		for k := range h.Ops {
			op := &h.Ops[k]
			if !op.IsWrite() || !op.HasValue() {
				continue
			}
			reads, ok := want[h.Value(op)]
			if !ok {
				continue
			}
			res := h.ResourceName(op.Resource)
			for _, r := range reads {
				if r.Resource != res {
					if hints.foreign == nil {
						hints.foreign = map[int]string{}
					}
					if _, seen := hints.foreign[r.ID]; !seen {
						hints.foreign[r.ID] = res
					}
				}
			}
		}
	}
	open := map[string]int64{}
	for _, e := range h.Others {
		if e.Actor != histories.ActorNemesis {
			continue
		}
		switch e.F {
		case histories.FCrash:
			open[e.Fault] = e.Time
		case histories.FEnd:
			if from, ok := open[e.Fault]; ok {
				hints.crashes = append(hints.crashes, window{from, e.Time})
				delete(open, e.Fault)
			}
		}
	}
	for _, from := range open { // killed, never started again before the end
		hints.crashes = append(hints.crashes, window{from, histories.Infinity})
	}
	return hints
}

// findings groups r's failures into findings, root causes first.
func findings(r *Report, hints evidenceHints) []Finding {
	var out []Finding
	if n := len(r.Check.Issuer); n > 0 {
		out = append(out, Finding{Kind: FindingIssuer, Title: "the token issuer granted a token twice, or one below an earlier grant's",
			Count: n, First: r.Check.Issuer[0].String(), RootCause: true, example: -1})
	}
	groups := map[string][]int{}
	for i := range r.Check.Violations {
		k := kindOf(&r.Check.Violations[i], hints)
		groups[k] = append(groups[k], i)
	}
	vs := r.Check.Violations
	group := func(kind string) Finding {
		idx := groups[kind]
		slices.SortFunc(idx, func(a, b int) int {
			return cmp.Or(cmp.Compare(vs[a].At, vs[b].At), cmp.Compare(vs[a].Resource, vs[b].Resource))
		})
		f := Finding{Kind: kind, Count: len(idx), example: idx[0]}
		for _, i := range idx[:min(len(idx), maxNamedResources)] {
			f.Resources = append(f.Resources, vs[i].Resource)
		}
		first := vs[idx[0]]
		f.First = fmt.Sprintf("%s: %s", termsafe.String(first.Resource), first.Summary)
		switch kind {
		case FindingScope:
			f.Title, f.RootCause = "the receiver does not keep resources apart", true
			f.First = fmt.Sprintf("%s returned a value written to %s: %s", termsafe.String(first.Resource), termsafe.String(hints.foreign[culprit(&first)]), first.Summary)
		case FindingRestart:
			f.Title, f.RootCause = "the receiver forgot its state across a restart", true
		default:
			f.Title = ruleTitles[kind]
		}
		return f
	}
	for _, kind := range []string{FindingScope, FindingRestart} {
		if len(groups[kind]) > 0 {
			out = append(out, group(kind))
			delete(groups, kind)
		}
	}
	if r.ReceiverLog.Fails() {
		out = append(out, Finding{Kind: FindingReceiverLog, Title: "the receiver's log shows a crash or a bug", Count: r.ReceiverLog.Findings,
			First: r.ReceiverLog.FindingSummary(), example: -1})
	}
	// The receiver's violations by kind: the first cause's kind first,
	// then by each kind's earliest evidence.
	var rest []Finding
	for kind := range groups {
		rest = append(rest, group(kind))
	}
	first := r.Check.First()
	slices.SortFunc(rest, func(a, b Finding) int {
		switch {
		case a.example == first:
			return -1
		case b.example == first:
			return 1
		}
		return cmp.Or(cmp.Compare(vs[a.example].At, vs[b.example].At), cmp.Compare(a.Kind, b.Kind))
	})
	out = append(out, rest...)
	if n := len(r.Exclusive); n > 0 {
		out = append(out, Finding{Kind: FindingExclusive, Title: "writes accepted after their lease had ended (the exclusive requirement)",
			Count: n, First: r.Exclusive[0].String(), example: -1})
	}
	return out
}

// ruleTitles say what each of explain's rules means, as a finding.
var ruleTitles = map[string]string{
	explain.RuleStaleAccepted:  "stale writes accepted: an older owner's write after a newer one's",
	explain.RuleEqualAccepted:  "the same token accepted twice under the strict policy",
	explain.RuleWrongRejection: "writes rejected that no accepted write justifies",
	explain.RuleReadOrigin:     "reads of a value no write of the resource wrote by then",
	explain.RuleStaleRead:      "stale reads: a read missed a write completed before it began",
	explain.RuleNoOrder:        "no legal order of the resource's operations",
}

// kindOf is the finding a violation belongs to: scope when its culprit
// read a value another resource's write wrote; restart when its culprit
// answered after a crash of the receiver and its evidence before it, for
// what a receiver that forgot its state gets wrong (accepting a barred
// token, returning an older value); else its rule.
func kindOf(v *explain.Violation, hints evidenceHints) string {
	if _, ok := hints.foreign[culprit(v)]; ok && v.Rule == explain.RuleReadOrigin {
		return FindingScope
	}
	forgot := v.Rule == explain.RuleStaleAccepted || v.Rule == explain.RuleEqualAccepted || v.Rule == explain.RuleStaleRead
	if forgot && acrossCrash(v, hints.crashes) {
		return FindingRestart
	}
	if v.Rule == "" {
		return explain.RuleNoOrder
	}
	return v.Rule
}

// culprit returns the ID of v's culprit, -1 when it names none.
func culprit(v *explain.Violation) int {
	for _, s := range v.Steps {
		if s.Culprit {
			return s.OpID
		}
	}
	return -1
}

// acrossCrash reports whether a crash lies between v's evidence and its
// culprit: a step that returned before the receiver was killed, and the
// culprit's answer after it was started again.
func acrossCrash(v *explain.Violation, crashes []window) bool {
	var c *explain.Step
	for i := range v.Steps {
		if v.Steps[i].Culprit {
			c = &v.Steps[i]
		}
	}
	if c == nil || c.Return == histories.Infinity {
		return false
	}
	for _, w := range crashes {
		if c.Return <= w.to {
			continue // answered before the receiver was started again
		}
		for _, s := range v.Steps {
			if !s.Culprit && !s.Initial && s.Return <= w.from {
				return true
			}
		}
	}
	return false
}

// Headline words a finding on one line: "scope on 63 resources: the
// receiver does not keep resources apart; first r2 returned …".
func (f *Finding) Headline() string {
	what := fmt.Sprintf("%d", f.Count)
	switch {
	case f.example >= 0 && f.Count == 1:
		what = "1 resource"
	case f.example >= 0:
		what = fmt.Sprintf("%d resources", f.Count)
	}
	return fmt.Sprintf("%s (%s): %s; first %s", f.Kind, what, f.Title, strings.TrimSpace(f.First))
}
