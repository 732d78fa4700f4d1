package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/internal/files"
	"github.com/fencecheck/fencecheck/model"
)

// Visualize writes porcupine's interactive HTML visualization of the given
// resource groups, with the lease and nemesis events of the history as
// annotations, so that a reader sees who held which token when a stale
// write was sent. The check is re-run in verbose mode, bounded by timeout.
func Visualize(w io.Writer, groups []model.Group, others []histories.Event, opts check.Options, timeout time.Duration) error {
	return VisualizeView(w, View{Groups: groups, Others: others}, opts, timeout)
}

// Annotations turns lease events into points and nemesis start/stop pairs
// into windows, for porcupine's visualization.
func Annotations(others []histories.Event) []porcupine.Annotation {
	var out []porcupine.Annotation
	open := make(map[string]histories.Event)
	for _, e := range others {
		switch {
		case e.Actor == histories.ActorLease:
			desc := fmt.Sprintf("%s %d", e.F, e.Token)
			out = append(out, porcupine.Annotation{
				Tag: "lease " + e.Resource, Start: e.Time, Description: desc,
				Details: fmt.Sprintf("worker %d: %s", e.Holder, e.Detail), BackgroundColor: leaseAnnotationColor(e.F),
			})
		case e.Actor == histories.ActorNemesis && (e.F == histories.FBegin || e.F == histories.FCrash || e.F == histories.FEnd || e.F == histories.FLeader):
			out = append(out, porcupine.Annotation{
				Tag: "nemesis " + e.Fault, Start: e.Time, Description: e.F, Details: e.Detail, BackgroundColor: "#fff3e0",
			})
		case e.Actor == histories.ActorNemesis && e.F == histories.FStart:
			open[e.Fault] = e
		case e.Actor == histories.ActorNemesis && e.F == histories.FStop:
			start, ok := open[e.Fault]
			if !ok {
				start = e
			}
			delete(open, e.Fault)
			out = append(out, porcupine.Annotation{
				Tag: "nemesis", Start: start.Time, End: e.Time, Description: e.Fault,
				Details: start.Detail + " / " + e.Detail, BackgroundColor: "#ffe0b2",
			})
		}
	}
	for _, fault := range slices.Sorted(maps.Keys(open)) {
		e := open[fault]
		out = append(out, porcupine.Annotation{Tag: "nemesis", Start: e.Time, Description: e.Fault + " (never stopped)", Details: e.Detail, BackgroundColor: "#ffe0b2"})
	}
	return out
}

// leaseAnnotationColor is the background of a lease event in the visualization.
func leaseAnnotationColor(f string) string {
	switch f {
	case histories.FAcquire:
		return "#c8e6c9"
	case histories.FExpire:
		return "#ffcdd2"
	}
	return "#e0e0e0"
}

// WriteVisualization writes porcupine's visualization of h to the file
// at path: the violating resources of res, or every resource when the
// history held.
func WriteVisualization(path string, h *histories.History, res explain.Result, opts check.Options) error {
	groups, _ := model.Prepare(h.Expand(nil), opts.Kind, opts.Policy)
	if len(res.Violations) > 0 {
		bad := make(map[string]bool)
		for _, v := range res.Violations {
			bad[v.Resource] = true
		}
		kept := groups[:0]
		for _, g := range groups {
			if bad[g.Resource] {
				kept = append(kept, g)
			}
		}
		groups = kept
	}
	return files.Write(path, "visualization", func(w io.Writer) error {
		return Visualize(w, groups, h.Others, opts, opts.Timeout)
	})
}
