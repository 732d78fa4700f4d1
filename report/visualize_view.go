package report

import (
	"fmt"
	"io"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// View is what a visualization shows: the operations of some resources,
// the lease and nemesis events beside them, extra annotations (the steps
// of a violation), and, for a view that starts in the middle of a
// resource's history, the states the resource may be in at its start.
type View struct {
	Groups      []model.Group
	Others      []histories.Event
	Annotations []porcupine.Annotation
	// Init lists the possible states at the start of the view; nil means
	// the view starts at the beginning, with every resource unwritten.
	// Only meaningful for a view of one resource.
	Init []model.State
	_    struct{}
}

// VisualizeView writes porcupine's visualization of v; see Visualize.
func VisualizeView(w io.Writer, v View, opts check.Options, timeout time.Duration) error {
	var ops []histories.Operation
	for _, g := range v.Groups {
		ops = append(ops, g.Ops...)
	}
	m := model.PorcupineFrom(opts.Kind, opts.Policy, v.Init)
	_, info := porcupine.CheckOperationsVerbose(m, model.ToPorcupine(ops), timeout)
	info.AddAnnotations(Annotations(v.Others))
	info.AddAnnotations(v.Annotations)
	if err := porcupine.Visualize(m, info, w); err != nil {
		return fmt.Errorf("visualize: %w", err)
	}
	return nil
}
