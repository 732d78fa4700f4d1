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
	index := make(map[string]int)
	var groups []Group
	for i := range ops {
		op := ops[i]
		if op.Status == histories.StatusFailed || (!op.IsWrite() && op.Status == histories.StatusUnknown) {
			continue
		}
		g, ok := index[op.Resource]
		if !ok {
			g = len(groups)
			index[op.Resource] = g
			groups = append(groups, Group{Resource: op.Resource})
		}
		groups[g].Ops = append(groups[g].Ops, op)
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
