package report

import (
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"slices"
	"strings"
	"time"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

//go:embed templates/report.html.tmpl
var templates embed.FS

var pageTemplate = template.Must(template.New("report.html.tmpl").ParseFS(templates, "templates/report.html.tmpl"))

// maxViolationsShown bounds the violations the report lists in full.
const maxViolationsShown = 10

// page is what the report template shows.
type page struct {
	Title, Verdict, VerdictClass, Reason string
	Command, Started, Elapsed, Checker   string
	Minimal                              *minimalView
	Violations                           []violationView
	MoreViolations                       int
	Findings                             []string
	NotCovered                           []gap
	Exercised, Config                    []Fact
	Outcomes                             []outcomeRow
	Resources                            []resourceRow
	MoreResources                        int
	Latency, Throughput                  template.HTML
	PlotNote, TimelineNote               string
	Links                                []string
}

type minimalView struct {
	Resource, Summary string
	Ops, From, Checks int
	OneMinimal        bool
	Elapsed           string
	Rows              []timelineRow
}

type violationView struct {
	Resource, Summary string
	Steps             []timelineRow
	// Kind and Title name the finding the violation is the first example
	// of; More counts the other resources that show it, MoreNames names
	// the first of them.
	Kind, Title string
	More        int
	MoreNames   string
}

// timelineRow is a row of the article's table: step | event | resource
// consequence.
type timelineRow struct {
	Step        int
	Time        string
	Actor       string // "process 3", "lease", "nemesis"
	Event       string
	Consequence string
	Violating   bool // the resource did something it must not
	Context     bool // a lease or nemesis event, not an operation
	// Trace is the operation's trace id, to find its requests in the
	// receiver's logs; empty when the target carries none.
	Trace string
}

type gap struct {
	Text string
	Loud bool
}

type outcomeRow struct {
	Name  string
	Count int
	Share string
	Class string
}

type resourceRow struct {
	Name                                               string
	Writes, Accepted, Rejected, Unknown, Failed, Reads int
	Verdict                                            string
	VerdictClass                                       string
}

func newPage(in *Input, lim Limits, timelineNote string) (*page, error) {
	p := &page{
		Title: in.Title, Verdict: string(in.Verdict), VerdictClass: string(in.Verdict), Reason: in.Reason,
		Command: in.Command, Findings: in.Findings, Exercised: in.Exercised, Config: in.Config,
		TimelineNote: timelineNote, Links: in.Files,
		Checker: fmt.Sprintf("%s checker, %s model, %s policy, %v", in.Check.Checker, in.Check.Model, in.Check.Policy, in.Check.Elapsed.Round(time.Microsecond)),
	}
	for _, g := range in.NotCovered {
		// The harness shouts the one gap that makes a pass meaningless.
		p.NotCovered = append(p.NotCovered, gap{Text: g, Loud: strings.HasPrefix(g, "NO ")})
	}
	if !in.Started.IsZero() {
		p.Started = in.Started.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if in.Elapsed > 0 {
		p.Elapsed = in.Elapsed.Round(time.Millisecond).String()
	}
	marked := make(map[int]bool)
	if s := in.Minimal; s != nil {
		p.Minimal = &minimalView{Resource: s.Resource, Summary: s.Violation.Summary, Ops: len(s.Ops), From: s.From,
			Checks: s.Checks, OneMinimal: s.Minimal, Elapsed: s.Elapsed.Round(time.Millisecond).String(),
			Rows: storyRows(s)}
		for _, id := range s.OpIDs {
			marked[id] = true
		}
	}
	p.Violations, p.MoreViolations = violationViews(in)
	p.Outcomes = outcomeRows(in.History.Count())
	p.Resources, p.MoreResources = resourceRows(in, lim.TableRows)
	lat, err := latencyPlot(in.operations(), in.History.Others, marked, lim.PlotPoints)
	if err != nil {
		return nil, err
	}
	thr, err := throughputPlot(in.operations(), in.History.Others)
	if err != nil {
		return nil, err
	}
	// The SVG is made here from numbers and fixed labels only: no text
	// from the history reaches it, so it is safe to inline.
	p.Latency, p.Throughput = template.HTML(lat), template.HTML(thr) //nolint:gosec
	if n := len(in.History.Ops); n > lim.PlotPoints {
		p.PlotNote = fmt.Sprintf("The latency plot shows an even sample of %d of the %d operations (every unknown or failed one, up to a quarter of them); throughput counts them all.", lim.PlotPoints, n)
	}
	return p, nil
}

// stepRows renders a violation's steps.
func stepRows(v explain.Violation) []timelineRow {
	var rows []timelineRow
	for i, s := range v.Steps {
		who, at := fmt.Sprintf("process %d", s.Process), explain.Interval(s.Call, s.Return)
		if s.Initial {
			who, at = "before the run", "before the run"
		}
		rows = append(rows, timelineRow{Step: i + 1, Time: at, Actor: who,
			Event: s.Event, Consequence: s.Expected, Violating: s.Culprit, Trace: s.Trace})
	}
	return rows
}

// storyRows tells the minimal counterexample in the article's style: every
// operation and the lease and nemesis events around them, in time order,
// each with what it did to the resource.
func storyRows(s *explain.Shrunk) []timelineRow {
	culprit := make(map[int]string)
	for _, st := range s.Violation.Steps {
		if st.Culprit {
			culprit[st.OpID] = st.Expected
		}
	}
	type item struct {
		at  int64
		seq int64
		row timelineRow
	}
	var items []item
	for i := range s.Ops {
		op := &s.Ops[i]
		at := explain.Interval(op.Call, op.Return)
		if op.Initial {
			at = "before the run"
		}
		r := timelineRow{Time: at, Actor: actor(op),
			Event: model.DescribeHistoryOp(op), Consequence: consequence(op), Trace: op.Trace}
		if want, ok := culprit[op.ID]; ok {
			r.Consequence, r.Violating = r.Consequence+". It must: "+want, true
		}
		items = append(items, item{op.Call, op.InvokeIndex, r})
	}
	for _, e := range s.Others {
		items = append(items, item{e.Time, e.Index, contextRow(e)})
	}
	slices.SortStableFunc(items, func(a, b item) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.seq, b.seq)) })
	rows := make([]timelineRow, len(items))
	for i, it := range items {
		rows[i] = it.row
		rows[i].Step = i + 1
	}
	return rows
}

// actor names who performed op: a process, or nobody for the state
// before the run.
func actor(op *histories.Operation) string {
	if op.Initial {
		return "before the run"
	}
	return fmt.Sprintf("process %d", op.Process)
}

func consequence(op *histories.Operation) string {
	switch {
	case op.Initial:
		return fmt.Sprintf("the resource held %q with token %d before the run", op.Value, op.Token)
	case op.IsWrite() && op.Status == histories.StatusFailed:
		return "the write failed: it never took effect"
	case op.IsWrite() && op.Status == histories.StatusAccepted:
		return fmt.Sprintf("resource accepted token %d and stores %q", op.Token, op.Value)
	case op.IsWrite() && op.Status == histories.StatusRejected:
		return fmt.Sprintf("resource rejected token %d; nothing changes", op.Token)
	case op.IsWrite():
		return "outcome unknown: the write may or may not have taken effect"
	}
	return "a read changes nothing"
}

func contextRow(e histories.Event) timelineRow {
	r := timelineRow{Time: time.Duration(e.Time).String(), Actor: e.Actor, Context: true, Consequence: "does not modify the resource"}
	switch {
	case e.Actor == histories.ActorLease && e.F == histories.FAcquire:
		r.Event = fmt.Sprintf("worker %d receives token %d on %s", e.Holder, e.Token, e.Resource)
	case e.Actor == histories.ActorLease && e.F == histories.FExpire:
		r.Event = fmt.Sprintf("the lease of worker %d (token %d) expires", e.Holder, e.Token)
		r.Consequence = "expiry alone does not modify the resource"
	case e.Actor == histories.ActorLease:
		r.Event = fmt.Sprintf("worker %d %ss token %d", e.Holder, e.F, e.Token)
	case e.F == histories.FStart || e.F == histories.FStop:
		r.Event = fmt.Sprintf("%s fault window %s", e.Fault, map[string]string{histories.FStart: "opens", histories.FStop: "closes"}[e.F])
	default:
		r.Event = e.Fault + ": " + e.Detail
	}
	return r
}

func outcomeRows(c histories.Counts) []outcomeRow {
	rows := []outcomeRow{
		{"writes accepted", c.Accepted, "", "accepted"},
		{"writes rejected as stale", c.Rejected, "", "rejected"},
		{"writes with unknown outcome", c.UnknownWrites, "", "unknown"},
		{"writes failed (never applied)", c.FailedWrites, "", "failed"},
		{"reads answered", c.Reads - c.UnknownReads - c.FailedReads, "", "read"},
		{"reads with unknown outcome", c.UnknownReads, "", "unknown"},
		{"reads failed", c.FailedReads, "", "failed"},
	}
	for i := range rows {
		if c.Operations > 0 {
			rows[i].Share = fmt.Sprintf("%.1f%%", 100*float64(rows[i].Count)/float64(c.Operations))
		}
	}
	return rows
}

func resourceRows(in *Input, limit int) ([]resourceRow, int) {
	verdict := make(map[string]string)
	for _, v := range in.Check.Violations {
		verdict[v.Resource] = "violated"
	}
	for _, r := range in.Check.TimedOut {
		verdict[r] = "inconclusive"
	}
	index := make(map[string]int)
	var rows []resourceRow
	ops := in.operations()
	for i := range ops {
		op := &ops[i]
		j, ok := index[op.Resource]
		if !ok {
			j = len(rows)
			index[op.Resource] = j
			rows = append(rows, resourceRow{Name: op.Resource})
		}
		r := &rows[j]
		if !op.IsWrite() {
			r.Reads++
			continue
		}
		r.Writes++
		switch op.Status {
		case histories.StatusAccepted:
			r.Accepted++
		case histories.StatusRejected:
			r.Rejected++
		case histories.StatusFailed:
			r.Failed++
		default:
			r.Unknown++
		}
	}
	for i := range rows {
		rows[i].Verdict = cmp.Or(verdict[rows[i].Name], "held")
		if in.Check.Verdict == "" {
			rows[i].Verdict = ""
		}
		rows[i].VerdictClass = rows[i].Verdict
	}
	// Violated resources first, then by name.
	slices.SortStableFunc(rows, func(a, b resourceRow) int {
		return cmp.Or(cmp.Compare(rank(a.Verdict), rank(b.Verdict)), cmp.Compare(a.Name, b.Name))
	})
	if len(rows) > limit {
		return rows[:limit], len(rows) - limit
	}
	return rows, 0
}

func rank(verdict string) int {
	switch verdict {
	case "violated":
		return 0
	case "inconclusive":
		return 1
	}
	return 2
}

// violationViews are the violations the report shows in full: with the
// judgement's findings, the first example of each kind (the minimal
// counterexample above tells its own), the other resources of the kind
// named; without them, each violation once, up to maxViolationsShown.
func violationViews(in *Input) ([]violationView, int) {
	var out []violationView
	if len(in.Kinds) > 0 {
		for _, f := range in.Kinds {
			i := f.Example()
			if i < 0 {
				continue
			}
			v := in.Check.Violations[i]
			view := violationView{Resource: v.Resource, Summary: v.Summary, Kind: f.Kind, Title: f.Title, More: f.Count - 1}
			if in.Minimal == nil || v.Resource != in.Minimal.Resource {
				view.Steps = stepRows(v)
			}
			if len(f.Resources) > 1 {
				view.MoreNames = strings.Join(f.Resources[1:], ", ")
				if f.Count > len(f.Resources) {
					view.MoreNames += ", …"
				}
			}
			out = append(out, view)
		}
		return out, 0
	}
	var others []explain.Violation
	for _, v := range in.Check.Violations {
		if in.Minimal == nil || v.Resource != in.Minimal.Resource {
			others = append(others, v)
		}
	}
	for i, v := range others {
		if i == maxViolationsShown {
			return out, len(others) - i
		}
		out = append(out, violationView{Resource: v.Resource, Summary: v.Summary, Steps: stepRows(v)})
	}
	return out, 0
}
