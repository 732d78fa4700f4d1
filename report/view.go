package report

import (
	"fmt"
	"strings"

	"github.com/fencecheck/fencecheck/explain"
	"github.com/fencecheck/fencecheck/histories"
	"github.com/fencecheck/fencecheck/model"
)

// sampleResources is how many resources a sample of a big valid history
// shows.
const sampleResources = 4

// chooseView picks what timeline.html shows. Porcupine's page holds every
// operation with its state after each step, so its size grows with the
// history: above limit operations it shows a bounded part and says so.
//
//   - Small histories: every resource.
//   - A violation: its resource alone; if that is still too big, a window
//     of it around the violation, which starts from the states the
//     resource may be in at that point (model.StatesBefore).
//   - A big valid history: the first operations of a few resources.
//
// Cuts are put where no operation is in flight on the resource if
// possible, so that the part shown is as checkable as the whole.
func chooseView(in *Input, limit int) (View, string) {
	groups, _ := model.Prepare(in.operations(), in.Options.Kind, in.Options.Policy)
	total := 0
	for _, g := range groups {
		total += len(g.Ops)
	}
	if total <= limit {
		return View{Groups: groups, Others: in.History.Others}, fmt.Sprintf("All %d operations on %d resources.", total, len(groups))
	}
	if len(in.Check.Violations) > 0 {
		return windowView(in, groups, limit, total)
	}
	return sampleView(in, groups, limit, total)
}

func windowView(in *Input, groups []model.Group, limit, total int) (View, string) {
	v := in.Check.Violations[in.Check.First()]
	var g model.Group
	for _, x := range groups {
		if x.Resource == v.Resource {
			g = x
		}
	}
	if len(g.Ops) <= limit {
		return View{Groups: []model.Group{g}, Others: in.History.Others},
			fmt.Sprintf("Only resource %s, where the first violation is: %d of %d operations.", g.Resource, len(g.Ops), total)
	}
	lo, hi := stepRange(g.Ops, v.Steps)
	from, to := windowAround(g.Ops, lo, hi, limit)
	win := model.Group{Resource: g.Resource, Ops: openBefore(g.Ops, from, in.Options.Policy)}
	win.Ops = append(win.Ops, g.Ops[from:to]...)
	view := View{Groups: []model.Group{win}, Others: in.History.Others}
	var b strings.Builder
	fmt.Fprintf(&b, "A window around the first violation: operations %d–%d of the %d on resource %s (%d on all resources).", from+1, to, len(g.Ops), g.Resource, total)
	if from > 0 && in.Options.Kind == model.KindFenced {
		view.Init = model.StatesBefore(g.Ops[:from], in.Options.Policy)
		b.WriteString(" It starts from the states the resource may be in after the operations before it.")
	}
	if cut := inFlight(g.Ops, from) + inFlight(g.Ops, to); cut > 0 {
		fmt.Fprintf(&b, " Its edges cut %d operations in flight; answers next to the edges may look unexplained.", cut)
	}
	return view, b.String()
}

func sampleView(in *Input, groups []model.Group, limit, total int) (View, string) {
	n := min(len(groups), sampleResources)
	budget := limit / n
	var shown []model.Group
	var names []string
	count := 0
	for _, g := range groups[:n] {
		to := cleanCutBefore(g.Ops, min(budget, len(g.Ops)))
		shown = append(shown, model.Group{Resource: g.Resource, Ops: g.Ops[:to]})
		names = append(names, g.Resource)
		count += to
	}
	return View{Groups: shown, Others: in.History.Others},
		fmt.Sprintf("A sample: the first %d operations of resources %s, of %d operations on %d resources. history.jsonl has them all.",
			count, strings.Join(names, ", "), total, len(groups))
}

// The operations of a group are in invocation order. A cut at i splits
// ops[:i] from ops[i:]; it is clean when every operation before it has
// returned before ops[i] was invoked. Writes with unknown outcome that
// were never capped stay open for ever; they constrain nothing and do not
// count.

// inFlight counts the operations before i still open when ops[i] began.
func inFlight(ops []histories.Operation, i int) int {
	if i <= 0 || i >= len(ops) {
		return 0
	}
	n := 0
	for j := range i {
		if r := ops[j].Return; r != histories.Infinity && r >= ops[i].Call {
			n++
		}
	}
	return n
}

// cleanCuts marks the clean cut points of ops.
func cleanCuts(ops []histories.Operation) []bool {
	clean := make([]bool, len(ops)+1)
	clean[0], clean[len(ops)] = true, true
	var latest int64 = -1
	for i := range ops {
		if i > 0 && latest < ops[i].Call {
			clean[i] = true
		}
		if r := ops[i].Return; r != histories.Infinity {
			latest = max(latest, r)
		}
	}
	return clean
}

// cleanCutBefore returns the last clean cut at or before i, or i if the
// last one is less than half of i.
func cleanCutBefore(ops []histories.Operation, i int) int {
	clean := cleanCuts(ops)
	for j := i; j > i/2; j-- {
		if clean[j] {
			return j
		}
	}
	return i
}

// windowAround returns [from, to) holding ops[lo..hi] and at most limit
// operations, preferring clean cuts.
func windowAround(ops []histories.Operation, lo, hi, limit int) (int, int) {
	clean := cleanCuts(ops)
	if hi-lo+1 >= limit {
		return lo, hi + 1
	}
	slack := limit - (hi - lo + 1)
	from := max(0, lo-slack/2)
	for j := from; j <= lo; j++ { // the earliest clean cut in the lower half
		if clean[j] {
			from = j
			break
		}
	}
	to := min(len(ops), from+limit)
	for j := to; j > hi; j-- { // the latest clean cut that fits
		if clean[j] {
			to = j
			break
		}
	}
	return from, to
}

// stepRange returns the positions in ops of the first and last step.
func stepRange(ops []histories.Operation, steps []explain.Step) (int, int) {
	want := make(map[int]bool)
	for _, s := range steps {
		want[s.OpID] = true
	}
	lo, hi := -1, -1
	for i := range ops {
		if want[ops[i].ID] {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return 0, 0
	}
	return lo, hi
}

// openBefore returns the writes before from whose outcome is unknown and
// which may still take effect inside the window: they belong in it.
func openBefore(ops []histories.Operation, from int, p model.Policy) []histories.Operation {
	var highest uint64
	for i := range from {
		if ops[i].IsWrite() && ops[i].Status == histories.StatusAccepted {
			highest = max(highest, ops[i].Token)
		}
	}
	var out []histories.Operation
	for i := range from {
		op := ops[i]
		if op.IsWrite() && op.Status == histories.StatusUnknown && op.Return == histories.Infinity && p.MayAccept(highest, op.Token) {
			out = append(out, op)
		}
	}
	return out
}
