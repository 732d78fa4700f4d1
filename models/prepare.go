package models

import (
	"slices"

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
// modified.
func Prepare(ops []histories.Operation, opts Options) ([]Group, CapStats) {
	// Two passes, so that each group is allocated once at its final size:
	// histories of millions of operations would otherwise spend most of
	// the time growing and copying the groups.
	which := make([]int32, len(ops)) // the group of each operation, -1 when left out
	index := make(map[string]int32)
	var groups []Group
	var sizes []int
	lastName, last := "", int32(-1)
	for i := range ops {
		op := &ops[i]
		if op.Status == histories.StatusFailed || (!op.IsWrite() && op.Status == histories.StatusUnknown) {
			which[i] = -1
			continue
		}
		if last < 0 || op.Resource != lastName {
			g, ok := index[op.Resource]
			if !ok {
				g = int32(len(groups))
				index[op.Resource] = g
				groups = append(groups, Group{Resource: op.Resource})
				sizes = append(sizes, 0)
			}
			lastName, last = op.Resource, g
		}
		which[i] = last
		sizes[last]++
	}
	for g := range groups {
		groups[g].Ops = make([]histories.Operation, 0, sizes[g])
	}
	for i := range ops {
		if g := which[i]; g >= 0 {
			groups[g].Ops = append(groups[g].Ops, ops[i])
		}
	}
	slices.SortFunc(groups, func(a, b Group) int {
		if a.Resource < b.Resource {
			return -1
		}
		if a.Resource > b.Resource {
			return 1
		}
		return 0
	})
	var total CapStats
	if opts.Kind == KindFenced {
		for i := range groups {
			var st CapStats
			groups[i].Ops, st = ApplyFencingCap(opts.Policy, groups[i].Ops)
			total.Capped += st.Capped
			total.Dropped += st.Dropped
		}
	}
	return groups, total
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
