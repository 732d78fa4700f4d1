package explain

import (
	"slices"

	"github.com/fencecheck/fencecheck/histories"
)

// porcupineCandidateLimit is the largest candidate whose verdict the
// shrinker asks porcupine for; larger ones (a neighbourhood, the whole
// resource) go to the exact fast checker. Porcupine is the reference and
// decides a witness of a few operations in microseconds, but its search
// on one resource with tens of clients can take gigabytes at ten thousand
// operations (docs/performance.md, the checker matrix).
const porcupineCandidateLimit = 1000

// neighbourhoodGrowth is the factor by which each neighbourhood of the
// witness is larger than the last; firstNeighbourhood is the number of
// the resource's operations taken on each side of the witness first.
const (
	neighbourhoodGrowth = 4
	firstNeighbourhood  = 16
)

// start finds where the search starts: the first of these that fails,
// for v's reason, or else for the reason Explain gives (see adopt):
//
//   - the witness: the operations v names and those that justify them;
//   - neighbourhoods of the witness: the resource's operations within
//     16, 64, 256, ... positions of the witness's in history order, with
//     the witness, until they hold the whole resource;
//   - the resource's whole history.
//
// Each candidate costs time and memory in its own size, so a violation
// whose witness reproduces (nearly all) is shrunk without copying the
// resource's history, however long it is. A witness on which Explain
// gives another account than v's (v came from the fast checker's
// witness, in terms Explain's rules do not have) is adopted rather than
// grown: the account is of a real counterexample, and looking for v's
// own on the whole resource would cost what checking it cost. noWitness starts from the
// whole resource, as delta debugging alone would. It reports false when
// nothing reproduces within the bound.
func (s *shrinker) start(v Violation, noWitness bool) ([]histories.Operation, bool) {
	var stages []func() ([]histories.Operation, string)
	whole := func() ([]histories.Operation, string) {
		return s.candidates(func(*histories.Operation) bool { return true }), "resource"
	}
	if noWitness {
		stages = append(stages, whole)
	} else {
		witness := s.witnessOf(v)
		stages = append(stages, func() ([]histories.Operation, string) { return s.candidatesAt(witness), "witness" })
		for reach := firstNeighbourhood; !s.coversAll(witness, reach); reach *= neighbourhoodGrowth {
			stages = append(stages, func() ([]histories.Operation, string) {
				return s.candidatesAt(s.around(witness, reach)), "neighbourhood"
			})
		}
		stages = append(stages, whole)
	}
	for _, stage := range stages {
		if s.expired() {
			return nil, false
		}
		cur, where := stage()
		if len(cur) > 0 && (s.fails(cur) || s.adopt(cur)) {
			s.started = where
			return cur, true
		}
	}
	return nil, false
}

// witnessOf returns the positions in the universe of the operations v
// names and of those that justify them: every write of a value read (a
// candidate must hold the writes of what it reads), the writes that may
// have taken effect with the highest token sent before a rejection
// answered and the first that justifies it, the accepted write that bars
// an accepted or unknown one and returned first, and the accepted write
// with a higher token that returned before a write or read began. The
// resource's operations only, and only those a candidate can use.
func (s *shrinker) witnessOf(v Violation) []int32 {
	u := s.u
	pos := func(op *histories.Operation) (int32, bool) {
		if op == nil || op.Resource != s.resource {
			return 0, false
		}
		if u.byID == nil {
			return int32(op.ID), op.ID >= 0 && op.ID < len(u.all) && &u.all[op.ID] == op
		}
		k, ok := u.byID[op.ID]
		return k, ok
	}
	seen := make(map[int32]bool)
	var out []int32
	add := func(op *histories.Operation) {
		if k, ok := pos(op); ok && !seen[k] && usable(op) {
			seen[k] = true
			out = append(out, k)
		}
	}
	var named []*histories.Operation
	for _, st := range v.Steps {
		if op := u.byOpID(st.OpID); op != nil {
			named = append(named, op)
			add(op)
		}
	}
	for _, op := range named {
		switch {
		case !op.IsWrite() && op.HasValue:
			u.eachWrite(op.Value, func(w *histories.Operation) bool { add(w); return true })
			add(u.newerBefore(op))
		case op.IsWrite() && op.Status == histories.StatusRejected:
			add(u.highestSentBy(op.Return))
			add(u.earliestJustifier(op))
		case op.IsWrite():
			add(u.earliestBarring(op))
			add(u.newerBefore(op))
		}
	}
	slices.Sort(out)
	return out
}

// span returns the positions in the resource's history order of the
// operations within reach of the witness's first and last.
func (s *shrinker) span(witness []int32, reach int) (lo, hi int) {
	ops := s.u.ops
	if len(witness) == 0 {
		return 0, len(ops)
	}
	lo, _ = slices.BinarySearch(ops, witness[0])
	hi, _ = slices.BinarySearch(ops, witness[len(witness)-1])
	return max(lo-reach, 0), min(hi+reach+1, len(ops))
}

// coversAll reports whether the neighbourhood of reach is the whole
// resource.
func (s *shrinker) coversAll(witness []int32, reach int) bool {
	lo, hi := s.span(witness, reach)
	return lo == 0 && hi == len(s.u.ops)
}

// around returns the witness with the resource's usable operations
// within reach positions of its first and last in history order.
func (s *shrinker) around(witness []int32, reach int) []int32 {
	lo, hi := s.span(witness, reach)
	out := slices.Clone(witness)
	for _, k := range s.u.ops[lo:hi] {
		if usable(s.u.at(k)) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// candidatesAt copies the operations at positions in the universe (sorted)
// into a candidate, in history order.
func (s *shrinker) candidatesAt(positions []int32) []histories.Operation {
	out := make([]histories.Operation, len(positions))
	for i, k := range positions {
		out[i] = *s.u.at(k)
	}
	return out
}

// usable reports whether a counterexample can use op: the writes, failed
// ones included (an explanation names them), and the reads that
// returned.
func usable(op *histories.Operation) bool {
	return op.IsWrite() || op.Status == histories.StatusOK
}
