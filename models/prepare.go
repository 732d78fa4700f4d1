package models

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
// filters and caps them for the model in opts. It copies; ops is not
// modified. CheckFast judges the same groups, filter and cap (the same
// functions: checkable and fencingCap) without copying operations.
func Prepare(ops []histories.Operation, opts Options) ([]Group, CapStats) {
	index := groupByResource(ops)
	groups := make([]Group, len(index))
	var total CapStats
	for g, x := range index {
		out := make([]histories.Operation, len(x.pos))
		for k, i := range x.pos {
			out[k] = ops[i]
		}
		if opts.Kind == KindFenced {
			var st CapStats
			out, st = ApplyFencingCap(opts.Policy, out)
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

// checkable reports whether a checker must judge op: a failed operation
// and a read without an answer can have had no observable effect.
func checkable(op *histories.Operation) bool {
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
		if !checkable(op) {
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

// Model returns the porcupine model that opts name.
func Model(opts Options) porcupine.Model {
	if opts.Kind == KindRegister {
		return Register()
	}
	return Fenced(opts.Policy)
}
