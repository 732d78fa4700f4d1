package models

import (
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/histories"
)

// View is what a visualization shows: the operations of some resources,
// the lease and nemesis events beside them, extra annotations (the steps
// of a violation), and, for a view that starts in the middle of a
// resource's history, the states the resource may be in at its start.
type View struct {
	Groups      []Group
	Others      []histories.Event
	Annotations []porcupine.Annotation
	// Init lists the possible states at the start of the view; nil means
	// the view starts at the beginning, with every resource unwritten.
	// Only meaningful for a view of one resource.
	Init []State
	_    struct{}
}

// VisualizeView writes porcupine's visualization of v; see Visualize.
func VisualizeView(w io.Writer, v View, opts Options, timeout time.Duration) error {
	var ops []histories.Operation
	for _, g := range v.Groups {
		ops = append(ops, g.Ops...)
	}
	model := modelFrom(opts, v.Init)
	_, info := porcupine.CheckOperationsVerbose(model, ToPorcupine(ops), timeout)
	info.AddAnnotations(Annotations(v.Others))
	info.AddAnnotations(v.Annotations)
	if err := porcupine.Visualize(model, info, w); err != nil {
		return fmt.Errorf("visualize: %w", err)
	}
	return nil
}

// modelFrom returns the model of opts, starting from init when given.
func modelFrom(opts Options, init []State) porcupine.Model {
	model := Model(opts)
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

// maxInitStates bounds the states a view may start from; porcupine's
// search grows with their number.
const maxInitStates = 16

// StatesBefore returns the states a fenced resource may be in once the
// operations in before (all of one resource, all returned before the
// view starts) have taken effect: the value of an accepted write with the
// highest accepted token, or of a write with unknown outcome that may
// have been accepted after it (Policy.MayAccept). If the operations before
// are themselves linearizable, the real state is among them.
func StatesBefore(before []histories.Operation, p Policy) []State {
	var highest uint64
	written := false
	for i := range before {
		if op := &before[i]; op.IsWrite() && op.Status == histories.StatusAccepted {
			highest, written = max(highest, op.Token), true
		}
	}
	var out []State
	seen := make(map[State]bool)
	add := func(s State) {
		if !seen[s] && len(out) < maxInitStates {
			seen[s] = true
			out = append(out, s)
		}
	}
	if !written {
		add(State{})
	}
	for i := len(before) - 1; i >= 0; i-- { // latest first: they matter most
		op := &before[i]
		switch {
		case !op.IsWrite():
		case op.Status == histories.StatusAccepted && op.Token == highest:
			add(State{Token: op.Token, Value: op.Value, Written: true})
		case op.Status == histories.StatusUnknown && (!written || p.MayAccept(highest, op.Token) || op.Token == highest):
			add(State{Token: op.Token, Value: op.Value, Written: true})
		}
	}
	return out
}
