package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/fencecheck/fencecheck/check"
	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// maxAnnotations bounds the lease and nemesis events drawn in a timeline.
const maxAnnotations = 2000

// writeTimeline writes porcupine's visualization of the view that fits the
// limit, with the violation's steps marked and a banner that says what
// the page shows and links back to the report.
func writeTimeline(w io.Writer, in *Input, lim Limits) (note string, err error) {
	v, note := chooseView(in, lim.TimelineOps)
	v.Annotations = stepMarks(in.Check.Violations, v.Groups)
	return note, visualize(w, v, in.Options, lim, note)
}

// writeMinimal writes the visualization of the minimal counterexample.
func writeMinimal(w io.Writer, in *Input, lim Limits) error {
	s := in.Minimal
	groups, _ := model.Prepare(s.Ops, in.Options.Kind, in.Options.Policy)
	v := View{Groups: groups, Others: s.Others, Annotations: stepMarks([]explain.Violation{s.Violation}, groups)}
	note := fmt.Sprintf("Minimal counterexample: %d of the %d operations, on resource %s. %s.",
		len(s.Ops), s.From, s.Resource, upperFirst(s.Violation.Summary))
	return visualize(w, v, in.Options, lim, note)
}

func visualize(w io.Writer, v View, opts check.Options, lim Limits, note string) error {
	v.Others = eventsDuring(v.Others, v.Groups)
	var buf bytes.Buffer
	if err := VisualizeView(&buf, v, opts, lim.CheckTimeout); err != nil {
		return err
	}
	page := buf.String()
	banner := `<div style="position:fixed;left:0;right:0;bottom:0;padding:6px 12px;background:#fff8e1;border-top:1px solid #ffcc80;font:14px Helvetica,Arial,sans-serif;z-index:10">` +
		html.EscapeString(note) + ` &nbsp;<a href="report.html">back to the report</a></div>`
	page = strings.Replace(page, "<body>", "<body>\n"+banner, 1)
	page = strings.Replace(page, "<title>Porcupine</title>", "<title>fencecheck timeline</title>", 1)
	_, err := io.WriteString(w, page)
	return err
}

// stepMarks marks each step of the violations shown on a row of its own.
func stepMarks(vs []explain.Violation, groups []model.Group) []porcupine.Annotation {
	shown := make(map[int]bool)
	for _, g := range groups {
		for i := range g.Ops {
			shown[g.Ops[i].ID] = true
		}
	}
	var out []porcupine.Annotation
	for _, v := range vs {
		for i, st := range v.Steps {
			if !shown[st.OpID] {
				continue
			}
			end := st.Return
			if end == histories.Infinity {
				end = st.Call
			}
			details := fmt.Sprintf("%s; the resource should: %s", st.Event, st.Expected)
			if st.Trace != "" {
				details += "; trace " + st.Trace
			}
			out = append(out, porcupine.Annotation{
				Tag: "violation " + v.Resource, Start: st.Call, End: end,
				Description: fmt.Sprintf("step %d", i+1),
				Details:     details,
				TextColor:   "#ffffff", BackgroundColor: "#d32f2f",
			})
		}
	}
	return out
}

// eventsDuring keeps the lease events of the resources shown and the
// nemesis events, within the time the view covers, at most maxAnnotations.
func eventsDuring(others []histories.Event, groups []model.Group) []histories.Event {
	if len(groups) == 0 {
		return nil
	}
	resources := make(map[string]bool)
	from, to := histories.Infinity, int64(0)
	for _, g := range groups {
		resources[g.Resource] = true
		for i := range g.Ops {
			op := &g.Ops[i]
			from, to = min(from, op.Call), max(to, op.Call)
			if op.Return != histories.Infinity {
				to = max(to, op.Return)
			}
		}
	}
	var out []histories.Event
	for _, e := range others {
		if len(out) == maxAnnotations {
			break
		}
		if e.Actor == histories.ActorLease && !resources[e.Resource] {
			continue
		}
		if e.Time >= from && e.Time <= to || e.Actor == histories.ActorNemesis && (e.F == histories.FStart || e.F == histories.FStop) {
			out = append(out, e)
		}
	}
	return out
}

func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
