package explain

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// ShrinkOptions bound the search for a minimal counterexample.
// DefaultShrinkOptions gives the defaults; a zero field means zero.
type ShrinkOptions struct {
	// Timeout bounds the whole search; 0 means no bound. When it runs
	// out, the smallest invalid history found so far is returned, marked
	// as not minimal.
	Timeout time.Duration
	// CheckTimeout bounds the check of one candidate, within what is left
	// of Timeout; 0 means no bound of its own. A candidate the checker
	// gives up on counts as valid, so it is kept out of the result rather
	// than trusted.
	CheckTimeout time.Duration
	// NoHint starts delta debugging from the whole resource instead of
	// first trying the operations the explanation names. The hint is
	// almost always right and makes shrinking instant; without it the
	// search shows what delta debugging alone achieves.
	NoHint bool
	_      struct{}
}

// DefaultShrinkOptions bound the search to 10s and each candidate's check
// to 1s: a porcupine check that takes longer is one of a candidate too
// large to be the answer, and the hint usually makes the search instant.
func DefaultShrinkOptions() ShrinkOptions {
	return ShrinkOptions{Timeout: 10 * time.Second, CheckTimeout: time.Second}
}

// Validate says which field is out of range.
func (o ShrinkOptions) Validate() error {
	switch {
	case o.Timeout < 0:
		return fmt.Errorf("shrink options: Timeout %v is negative", o.Timeout)
	case o.CheckTimeout < 0:
		return fmt.Errorf("shrink options: CheckTimeout %v is negative", o.CheckTimeout)
	}
	return nil
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
	Minimal bool `json:"one_minimal"`
	// Adopted says the violation shrunk is Explain's account of the
	// resource rather than the one the check gave (which came from the
	// fast checker's witness, in terms Explain's rules do not have).
	Adopted bool `json:"adopted,omitempty"`
	// Start says where the search started: "witness" (the operations the
	// explanation names and those that justify them), "neighbourhood"
	// (the resource's operations around them, when the witness alone did
	// not reproduce), or "resource" (all its operations).
	Start   string        `json:"start,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`

	// Ops are the operations kept and Others the lease and nemesis
	// events around them, for display; Events rebuilds the history file.
	Ops    []histories.Operation `json:"-"`
	Others []histories.Event     `json:"-"`
}

// Events returns the shrunk history as events, a history file that
// fencecheck check judges again.
func (s *Shrunk) Events() []histories.Event { return eventsOf(s.Ops, s.Others) }

// Shrink reduces a history, whose check found violation v, to a small
// sub-history that is still invalid for the same reason, by delta
// debugging (Zeller's ddmin). The history is ops, its operations in the
// full form (those of v's resource at least: it shrinks one resource),
// and others, its lease and nemesis events, which the sub-history keeps
// around the operations it keeps:
//
//  1. Resources. Each resource is an independent register, so the
//     violating resource alone is still invalid and the others go at once.
//  2. The witness: the operations the explanation names (usually two or
//     three) and those that justify them (the writes of a value read, the
//     write with the highest token sent before a rejection answered, the
//     accepted write that bars an accepted one). When it does not
//     reproduce, the resource's operations around it, four times more
//     each time; the resource's whole history only when none of those
//     reproduces (see start). A search that starts from the witness
//     holds candidates of its size only.
//  3. Processes: ddmin over the set of client processes.
//  4. Operations: ddmin over single operations, down to a 1-minimal set.
//
// A candidate S counts as failing only if it is a counterexample of h
// itself, for v's reason:
//
//   - porcupine finds S invalid (the fast checker, which is exact, when
//     S is too large for porcupine's search: porcupineCandidateLimit);
//   - Explain's account of S, with the resource's original history as its
//     universe (every universal claim is answered there, and every
//     operation it names is in S), has v's rule and v's culprit, the
//     operation whose answer the resource must not have given;
//   - S with every write of h that may have taken effect (accepted,
//     unknown, the state before the run) added back is still invalid.
//     Adding reads and rejections to an invalid history can never make it
//     valid, so h is then invalid for S's reasons, and no write the
//     search left out could have justified S's answers;
//   - every value its reads returned is written in S, unless no write of
//     the resource wrote it.
//
// S may keep failed writes: the checkers ignore them, and an explanation
// names them (a read of a failed write's value). Every operation of the
// result is one of h's, as recorded. When v's rule and culprit do not
// reproduce on the witness, around it, or on the resource (v came from the fast checker's
// witness, whose account Explain cannot give), the first account Explain
// gives of them is adopted, and kept fixed from then on (Shrunk.Adopted).
// It returns false when nothing reproduces within the bound, and an error
// only for options out of range (ShrinkOptions.Validate). A ctx that ends
// ends the search as its bound does: with the smallest counterexample
// found so far, which is then not called minimal.
func Shrink(ctx context.Context, ops []histories.Operation, others []histories.Event, v Violation, opts check.Options, so ShrinkOptions) (Shrunk, bool, error) {
	if err := so.Validate(); err != nil {
		return Shrunk{}, false, err
	}
	start := time.Now()
	s := &shrinker{ctx: ctx, opts: opts, rule: v.Rule, culprit: culpritOf(v), perCheck: so.CheckTimeout,
		resource: v.Resource, all: ops, u: newUniverse(ops, v.Resource, opts)}
	if so.Timeout > 0 {
		s.deadline = start.Add(so.Timeout)
	}
	s.written = s.u.writersOf()
	slices.SortFunc(s.written, func(a, b *histories.Operation) int { return cmp.Compare(a.ID, b.ID) })
	cur, ok := s.start(v, so.NoHint)
	if !ok {
		return Shrunk{}, false, nil
	}
	cur = s.ddmin(cur, func(op *histories.Operation) int { return op.Process })
	cur = s.ddmin(cur, func(op *histories.Operation) int { return op.ID })
	// s.last explains cur: the search changes cur only to a candidate
	// that just failed.
	out := Shrunk{
		Resource:  v.Resource,
		Violation: s.last,
		From:      len(ops),
		Checks:    s.checks,
		Minimal:   !s.expired(),
		Adopted:   s.adopted,
		Start:     s.started,
		Ops:       cur,
		Others:    contextEvents(cur, others, v.Resource),
		Elapsed:   time.Since(start),
	}
	for _, op := range cur {
		out.OpIDs = append(out.OpIDs, op.ID)
	}
	return out, true, nil
}

// culpritOf returns the ID of v's culprit, or -1.
func culpritOf(v Violation) int {
	for _, st := range v.Steps {
		if st.Culprit {
			return st.OpID
		}
	}
	return -1
}

type shrinker struct {
	ctx      context.Context
	opts     check.Options
	rule     string
	culprit  int           // the ID of the operation whose answer the resource must not have given
	deadline time.Time     // zero: no bound
	perCheck time.Duration // 0: no bound of its own
	resource string
	all      []histories.Operation  // the original history, all resources
	u        *universe              // the resource's original history
	written  []*histories.Operation // its writes that may have taken effect, in the universe
	// invalidSets are the sets of reads, rejections and failed writes
	// (by ID, sorted) that the writes of written were found invalid
	// with, and validSets those they were found valid with: see
	// invalidWithWrites.
	invalidSets, validSets [][]int
	adopting               bool // accept any rule and culprit, to adopt them
	adopted                bool
	started                string // where the search started (Shrunk.Start)
	checks                 int
	last                   Violation // the explanation of the last failing candidate
}

func (s *shrinker) expired() bool {
	return s.ctx.Err() != nil || !s.deadline.IsZero() && time.Now().After(s.deadline)
}

// checkTimeout bounds the check of one candidate: the per-check bound, or
// what is left of the search's, whichever is less; 0 (check.Options'
// none) when neither bounds it.
func (s *shrinker) checkTimeout() time.Duration {
	if s.deadline.IsZero() {
		return s.perCheck
	}
	left := max(time.Until(s.deadline), time.Millisecond)
	if s.perCheck == 0 {
		return left
	}
	return min(s.perCheck, left)
}

// adopt accepts ops as the starting point when Explain gives an account
// of it other than v's: v may come from the fast checker's witness,
// which can tell a violation in a way Explain's rules cannot. From then
// on the search keeps the rule and culprit Explain gave.
func (s *shrinker) adopt(ops []histories.Operation) bool {
	s.adopting = true
	ok := s.fails(ops)
	s.adopting = false
	if ok {
		s.rule, s.culprit, s.adopted = s.last.Rule, culpritOf(s.last), true
	}
	return ok
}

// fails reports whether ops is a counterexample of the original history
// for the same reason as v (see Shrink).
func (s *shrinker) fails(ops []histories.Operation) bool {
	if len(ops) == 0 || !s.readsClosed(ops) || s.expired() {
		return false
	}
	s.checks++
	groups, _ := model.Prepare(ops, s.opts.Kind, s.opts.Policy)
	if len(groups) != 1 {
		return false // only failed writes
	}
	o := s.opts
	o.Checker, o.Timeout = check.Porcupine, s.checkTimeout()
	if len(groups[0].Ops) > porcupineCandidateLimit {
		// Porcupine's search on one resource grows with its
		// concurrency: a neighbourhood of thousands of operations, or
		// the whole resource, goes to the exact fast checker, which
		// judges it in its size's memory.
		o.Checker = check.Fast
	}
	if res, err := check.Check(s.ctx, histories.FromOperations(groups[0].Ops), o); err != nil || res.Verdict != check.Violated {
		return false
	}
	member := make(map[int]bool, len(ops))
	for i := range ops {
		member[ops[i].ID] = true
	}
	f := explain(groups[0], s.u, func(id int) bool { return member[id] }, s.opts)
	if !s.adopting && (f.rule != s.rule || id(f.culprit) != s.culprit) {
		return false
	}
	if !s.invalidWithWrites(ops, member) {
		return false
	}
	s.last = f.violation(s.resource)
	return true
}

// invalidWithWrites reports whether ops with every write of the original
// history that may have taken effect is invalid, by the fast checker, or
// by porcupine where the fast one cannot judge (a check that gives up
// does not count as invalid). That history is those writes and ops's
// other operations (reads, rejections, failed writes): a candidate that
// differs from one already judged only in writes of the first kind is
// the same history, and one whose other operations include (are
// included in) those of a history found invalid (valid) is invalid
// (valid) too, as adding reads and rejections to a history only takes
// linearizations away. Those are answered without a check: delta
// debugging from a witness asks a handful of such histories, each as
// long as the resource's writes.
func (s *shrinker) invalidWithWrites(ops []histories.Operation, member map[int]bool) bool {
	var rest []int
	for i := range ops {
		if !mayHaveApplied(&ops[i]) {
			rest = append(rest, ops[i].ID)
		}
	}
	slices.Sort(rest)
	for _, k := range s.invalidSets {
		if includes(rest, k) {
			return true
		}
	}
	for _, v := range s.validSets {
		if includes(v, rest) {
			return false
		}
	}
	if s.invalid(s.unionWith(ops, member)) {
		s.invalidSets = append(s.invalidSets, rest)
		return true
	}
	if !s.expired() {
		s.validSets = append(s.validSets, rest) // not one the bound cut short
	}
	return false
}

// includes reports whether the sorted set a includes the sorted set b.
func includes(a, b []int) bool {
	i := 0
	for _, x := range b {
		for i < len(a) && a[i] < x {
			i++
		}
		if i == len(a) || a[i] != x {
			return false
		}
	}
	return true
}

// unionWith returns ops with every write of written not in member, in
// the order of their IDs: a merge, as both are in that order (written
// is sorted once; a candidate is in history order), of references, so
// that the writes, as many as the resource's, are not copied.
func (s *shrinker) unionWith(ops []histories.Operation, member map[int]bool) []*histories.Operation {
	union := make([]*histories.Operation, 0, len(ops)+len(s.written))
	i := 0
	for _, w := range s.written {
		if member[w.ID] {
			continue
		}
		for ; i < len(ops) && ops[i].ID < w.ID; i++ {
			union = append(union, &ops[i])
		}
		union = append(union, w)
	}
	for ; i < len(ops); i++ {
		union = append(union, &ops[i])
	}
	byID := func(a, b *histories.Operation) int { return cmp.Compare(a.ID, b.ID) }
	if !slices.IsSortedFunc(union, byID) {
		slices.SortFunc(union, byID)
	}
	return union
}

// invalid reports whether the fast checker (or porcupine where it cannot
// judge) finds ops invalid within what is left of the search's bound.
// The per-check bound is not applied: this history is as long as the
// resource's writes whatever the candidate, and the fast checker's time
// grows with its length only, so a loaded machine that made it miss the
// bound would lose a counterexample that is right.
func (s *shrinker) invalid(ops []*histories.Operation) bool {
	if len(ops) == 0 {
		return false
	}
	o := s.opts
	o.Checker, o.Timeout = check.Fast, 0
	if !s.deadline.IsZero() {
		o.Timeout = max(time.Until(s.deadline), time.Millisecond)
	}
	res, err := check.Check(s.ctx, histories.FromOperations(ops), o)
	return err == nil && res.Verdict == check.Violated
}

// readsClosed reports whether every value ops read is written in ops
// (by a write of any outcome), unless no write of the resource in the
// original history wrote it.
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

// isUnwritten reports whether no write of the resource, of any outcome,
// wrote value in the original history.
func (s *shrinker) isUnwritten(value string) bool { return !s.u.written(value) }

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

// candidates returns the operations of the resource that a
// counterexample can use (usable) and keep selects.
func (s *shrinker) candidates(keep func(*histories.Operation) bool) []histories.Operation {
	var out []histories.Operation
	for _, k := range s.u.ops {
		if op := s.u.at(k); usable(op) && keep(op) {
			out = append(out, *op)
		}
	}
	return out
}
