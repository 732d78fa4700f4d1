package model

import (
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/histories"
)

// Group is the part of a history that one resource saw, ready for a
// checker: failed operations and unknown reads removed (neither can have
// had an observable effect), and the fencing cap applied.
type Group struct {
	Resource string
	Ops      []histories.Operation
}

// Prepare groups ops by resource, in order of the resources' names, and
// filters and caps them for the model kind under policy p. It copies; ops
// is not modified. The fast checker judges the same groups, filter and cap
// (the same functions: Checkable and FencingCap) without copying operations.
func Prepare(ops []histories.Operation, kind Kind, p Policy) ([]Group, CapStats) {
	index := groupByResource(ops)
	groups := make([]Group, len(index))
	var total CapStats
	for g, x := range index {
		out := make([]histories.Operation, len(x.pos))
		for k, i := range x.pos {
			out[k] = ops[i]
		}
		if kind == KindFenced {
			var st CapStats
			out, st = ApplyFencingCap(p, out)
			total.Capped += st.Capped
			total.Dropped += st.Dropped
		}
		groups[g] = Group{Resource: x.resource, Ops: out}
	}
	return groups, total
}

// groupIndex is a resource's operations, as positions in the history.
type groupIndex struct {
	resource string
	pos      []int32
}

// Checkable reports whether a checker must judge op: a failed operation
// and a read without an answer can have had no observable effect.
func Checkable(op *histories.Operation) bool {
	return op.Status != histories.StatusFailed && (op.F == histories.FWrite || op.Status != histories.StatusUnknown)
}

// groupByResource keeps the operations a checker must judge and groups them
// by resource, in order of the resources' names. It allocates each group
// once, at its final size.
func groupByResource(ops []histories.Operation) []groupIndex {
	which := make([]int32, len(ops)) // the group of each operation, -1 when left out
	byName := make(map[string]int32)
	var groups []groupIndex
	var sizes []int
	lastName, last := "", int32(-1)
	for i := range ops {
		op := &ops[i]
		if !Checkable(op) {
			which[i] = -1
			continue
		}
		if last < 0 || op.Resource != lastName {
			g, ok := byName[op.Resource]
			if !ok {
				g = int32(len(groups))
				byName[op.Resource] = g
				groups = append(groups, groupIndex{resource: op.Resource})
				sizes = append(sizes, 0)
			}
			lastName, last = op.Resource, g
		}
		which[i] = last
		sizes[last]++
	}
	for g := range groups {
		groups[g].pos = make([]int32, 0, sizes[g])
	}
	for i, g := range which {
		if g >= 0 {
			groups[g].pos = append(groups[g].pos, int32(i))
		}
	}
	slices.SortFunc(groups, func(a, b groupIndex) int { return strings.Compare(a.resource, b.resource) })
	return groups
}

// ToPorcupine converts operations for porcupine. Process ids become dense
// client ids, which porcupine's visualization needs.
func ToPorcupine(ops []histories.Operation) []porcupine.Operation {
	clients := make(map[int]int)
	out := make([]porcupine.Operation, len(ops))
	for i := range ops {
		op := &ops[i]
		id, ok := clients[op.Process]
		if !ok {
			id = len(clients)
			clients[op.Process] = id
		}
		in := Input{Write: op.IsWrite()}
		res := Output{Status: op.Status}
		if in.Write {
			in.Token, in.Value = op.Token, op.Value
		} else {
			res.Value, res.HasValue, res.Token, res.HasToken = op.Value, op.HasValue, op.Token, op.HasToken
		}
		out[i] = porcupine.Operation{
			ClientId: id,
			Input:    in,
			Output:   res,
			Call:     op.Call,
			Return:   op.Return,
			Metadata: Meta{Resource: op.Resource, OpID: op.ID, Process: op.Process, Capped: in.Write && op.Status == histories.StatusUnknown && op.Return != histories.Infinity},
		}
	}
	return out
}

// Porcupine returns porcupine's model of kind k, under policy p for the
// fenced register.
func Porcupine(k Kind, p Policy) porcupine.Model {
	if k == KindRegister {
		return Register()
	}
	return Fenced(p)
}

// PorcupineFrom is Porcupine starting from one of the states in init, for
// a view that begins in the middle of a resource's history; with no init
// it starts unwritten.
func PorcupineFrom(k Kind, p Policy, init []State) porcupine.Model {
	model := Porcupine(k, p)
	if len(init) == 0 {
		return model
	}
	// A model converted from a NondeterministicModel keeps the set of
	// possible states as []interface{}; start from ours.
	states := make([]interface{}, len(init))
	for i, s := range init {
		states[i] = s
	}
	model.Init = func() interface{} { return states }
	return model
}
