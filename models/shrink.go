package models

import (
	"cmp"
	"slices"
	"time"

	"github.com/fencecheck/fencecheck/histories"
)

// ShrinkOptions bound the search for a minimal counterexample.
type ShrinkOptions struct {
	// Timeout bounds the whole search; default 10s. When it runs out,
	// the smallest invalid history found so far is returned, marked as
	// not minimal.
	Timeout time.Duration
	// CheckTimeout bounds the check of one candidate; default 1s. A
	// candidate the checker gives up on counts as valid, so it is kept
	// out of the result rather than trusted.
	CheckTimeout time.Duration
	// NoHint starts delta debugging from the whole resource instead of
	// first trying the operations the explanation names. The hint is
	// almost always right and makes shrinking instant; without it the
	// search shows what delta debugging alone achieves.
	NoHint bool
	_      struct{}
}

func (o *ShrinkOptions) fillDefaults() {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.CheckTimeout <= 0 {
		o.CheckTimeout = time.Second
	}
}

// Shrunk is a minimal counterexample: a sub-history of one resource that
// is still invalid, with the same kind of violation as the history it came
// from.
type Shrunk struct {
	Resource string `json:"resource"`
	// Violation is Explain's account of the shrunk history.
	Violation Violation `json:"violation"`
	// OpIDs are the operations kept, as IDs in the original history.
	OpIDs []int `json:"ops"`
	// From is the number of operations of the history shrunk from.
	From int `json:"from_ops"`
	// Checks is the number of candidate histories checked.
	Checks int `json:"checks"`
	// Minimal says the search finished: leaving out any one operation
	// makes the history valid, or changes what is wrong with it. It is
	// false when the time bound cut the search short.
	Minimal bool          `json:"one_minimal"`
	Elapsed time.Duration `json:"elapsed_ns"`

	// Ops are the operations kept and Others the lease and nemesis
	// events around them, for display; Events rebuilds the history file.
	Ops    []histories.Operation `json:"-"`
	Others []histories.Event     `json:"-"`
}

// Events returns the shrunk history as events, a history file that
// fencecheck check judges again.
func (s *Shrunk) Events() []histories.Event { return histories.Subset(s.Ops, s.Others) }

// Shrink reduces the history h, whose check found violation v, to a small
// sub-history that is still invalid, by delta debugging (Zeller's ddmin):
//
//  1. Resources. Each resource is an independent register, so the
//     violating resource alone is still invalid and the others go at once.
//  2. The hint: the operations the explanation names, usually two or three.
//  3. Processes: ddmin over the set of client processes.
//  4. Operations: ddmin over single operations, down to a 1-minimal set.
//
// Every candidate is re-checked with CheckPorcupine. A candidate counts as
// failing only if it is invalid with the same kind of violation
// (Violation.Rule) and every value its reads returned is still written by
// one of its writes: otherwise leaving out a write would "shrink" a stale
// read into a read of a value nobody wrote, a different and meaningless
// story. It returns false when v cannot be reproduced on its resource
// within the bound.
func Shrink(h *histories.History, v Violation, opts Options, so ShrinkOptions) (Shrunk, bool) {
	so.fillDefaults()
	start := time.Now()
	s := &shrinker{opts: opts, rule: v.Rule, deadline: start.Add(so.Timeout), perCheck: so.CheckTimeout, resource: v.Resource, all: h.Operations}
	// The hint first, and the resource's whole history only if the hint
	// does not fail: on a resource of a million operations the hint is
	// the only candidate porcupine decides quickly, and copying the
	// history would cost more than the search.
	var cur []histories.Operation
	hint := s.checkable(func(op *histories.Operation) bool {
		return slices.ContainsFunc(v.Steps, func(st Step) bool { return st.OpID == op.ID })
	})
	if !so.NoHint && len(hint) > 0 && (s.fails(hint) || s.adopt(hint)) {
		cur = hint
	} else {
		base := s.checkable(func(*histories.Operation) bool { return true })
		if !s.fails(base) && !s.adopt(base) {
			return Shrunk{}, false
		}
		cur = base
	}
	cur = s.ddmin(cur, func(op *histories.Operation) int { return op.Process })
	cur = s.ddmin(cur, func(op *histories.Operation) int { return op.ID })
	// s.last explains cur: the search changes cur only to a candidate
	// that just failed.
	out := Shrunk{
		Resource:  v.Resource,
		Violation: s.last,
		From:      len(h.Operations),
		Checks:    s.checks,
		Minimal:   !s.expired(),
		Ops:       cur,
		Others:    contextEvents(cur, h.Others, v.Resource),
		Elapsed:   time.Since(start),
	}
	for _, op := range cur {
		out.OpIDs = append(out.OpIDs, op.ID)
	}
	return out, true
}

type shrinker struct {
	opts     Options
	rule     string
	deadline time.Time
	perCheck time.Duration
	resource string
	all      []histories.Operation // the original history, all resources
	// unwritten: values read on the resource that no write there wrote,
	// computed on first need (see isUnwritten).
	unwritten map[string]bool
	lookups   int
	checks    int
	last      Violation // the explanation of the last failing candidate
}

func (s *shrinker) expired() bool { return time.Now().After(s.deadline) }

// adopt accepts ops as the starting point when it is invalid with a rule
// other than v's: v may come from another checker (the fast one), whose
// explanation can name the same violation differently. From then on the
// search keeps the kind porcupine and Explain see.
func (s *shrinker) adopt(ops []histories.Operation) bool {
	saved := s.rule
	s.rule = RuleNoOrder // accept any kind that is not an artefact
	if !s.fails(ops) {
		s.rule = saved
		return false
	}
	s.rule = s.last.Rule
	return true
}

// fails reports whether ops is invalid in the same way as the original.
func (s *shrinker) fails(ops []histories.Operation) bool {
	if len(ops) == 0 || !s.readsClosed(ops) {
		return false
	}
	s.checks++
	o := s.opts
	o.Timeout = min(s.perCheck, max(time.Until(s.deadline), time.Millisecond))
	res := CheckPorcupine(ops, o)
	if res.Verdict != Violated || !s.sameKind(res.Violations[0].Rule) {
		return false
	}
	s.last = res.Violations[0]
	return true
}

// sameKind accepts the original rule; a violation only the search could
// find may shrink into any kind that is not an artefact of leaving
// operations out (a rejection or a read whose justification was removed).
func (s *shrinker) sameKind(rule string) bool {
	if s.rule != RuleNoOrder {
		return rule == s.rule
	}
	return rule != RuleWrongRejection && rule != RuleReadOrigin
}

// readsClosed reports whether every value ops read is written in ops,
// unless the original history read it without any write either.
func (s *shrinker) readsClosed(ops []histories.Operation) bool {
	written := make(map[string]bool)
	for i := range ops {
		if ops[i].IsWrite() {
			written[ops[i].Value] = true
		}
	}
	for i := range ops {
		op := &ops[i]
		if !op.IsWrite() && op.HasValue && !written[op.Value] && !s.isUnwritten(op.Value) {
			return false
		}
	}
	return true
}

// ddmin removes units of operations (all operations sharing a key) while
// the rest still fails, until no single unit can go or time runs out.
func (s *shrinker) ddmin(ops []histories.Operation, key func(*histories.Operation) int) []histories.Operation {
	units := groupBy(ops, key)
	n := 2
	for len(units) >= 2 && !s.expired() {
		chunks := split(units, n)
		switch next, ok := s.reduce(chunks); {
		case ok && len(next) == 1:
			units, n = chunks[next[0]], 2
		case ok:
			units, n = merged(chunks, next), max(n-1, 2)
		case n >= len(units):
			return flatten(units)
		default:
			n = min(2*n, len(units))
		}
	}
	return flatten(units)
}

// reduce tries each chunk alone, then each complement, and returns the
// chunks to keep.
func (s *shrinker) reduce(chunks [][][]histories.Operation) ([]int, bool) {
	for i := range chunks {
		if s.expired() {
			return nil, false
		}
		if s.fails(flatten(chunks[i])) {
			return []int{i}, true
		}
	}
	if len(chunks) == 2 {
		return nil, false // the complements are the chunks themselves
	}
	for i := range chunks {
		if s.expired() {
			return nil, false
		}
		var keep []int
		for j := range chunks {
			if j != i {
				keep = append(keep, j)
			}
		}
		if s.fails(flatten(merged(chunks, keep))) {
			return keep, true
		}
	}
	return nil, false
}

func groupBy(ops []histories.Operation, key func(*histories.Operation) int) [][]histories.Operation {
	index := make(map[int]int)
	var units [][]histories.Operation
	for i := range ops {
		k := key(&ops[i])
		u, ok := index[k]
		if !ok {
			u = len(units)
			index[k] = u
			units = append(units, nil)
		}
		units[u] = append(units[u], ops[i])
	}
	return units
}

// split cuts units into n chunks of nearly equal size.
func split(units [][]histories.Operation, n int) [][][]histories.Operation {
	chunks := make([][][]histories.Operation, 0, n)
	for i := range n {
		lo, hi := i*len(units)/n, (i+1)*len(units)/n
		if hi > lo {
			chunks = append(chunks, units[lo:hi])
		}
	}
	return chunks
}

func merged(chunks [][][]histories.Operation, keep []int) [][]histories.Operation {
	var out [][]histories.Operation
	for _, i := range keep {
		out = append(out, chunks[i]...)
	}
	return out
}

// flatten returns the operations of units in their original order, which
// the checker and the explanation expect.
func flatten(units [][]histories.Operation) []histories.Operation {
	var out []histories.Operation
	for _, u := range units {
		out = append(out, u...)
	}
	slices.SortFunc(out, func(a, b histories.Operation) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// checkable returns the operations of the resource that a checker sees
// (no failed operations, no reads of unknown outcome) and keep selects.
func (s *shrinker) checkable(keep func(*histories.Operation) bool) []histories.Operation {
	var out []histories.Operation
	for i := range s.all {
		op := &s.all[i]
		if op.Resource == s.resource && op.Status != histories.StatusFailed && (op.IsWrite() || op.Status != histories.StatusUnknown) && keep(op) {
			out = append(out, *op)
		}
	}
	return out
}

// isUnwritten reports whether value was read on the resource in the
// original history without any write there writing it. A few values are
// looked up by scanning; past that, the whole answer is computed once.
func (s *shrinker) isUnwritten(value string) bool {
	if s.unwritten != nil {
		return s.unwritten[value]
	}
	if s.lookups < 16 {
		s.lookups++
		for i := range s.all {
			if op := &s.all[i]; op.Resource == s.resource && op.IsWrite() && op.Value == value {
				return false
			}
		}
		return true
	}
	s.unwritten = valuesReadNotWritten(s.checkable(func(*histories.Operation) bool { return true }))
	return s.unwritten[value]
}

func valuesReadNotWritten(ops []histories.Operation) map[string]bool {
	written := make(map[string]bool)
	for i := range ops {
		if ops[i].IsWrite() {
			written[ops[i].Value] = true
		}
	}
	out := make(map[string]bool)
	for i := range ops {
		if op := &ops[i]; !op.IsWrite() && op.HasValue && !written[op.Value] {
			out[op.Value] = true
		}
	}
	return out
}
