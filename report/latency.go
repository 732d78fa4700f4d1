package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/fencecheck/fencecheck/histories"
)

// latencyPlot draws every operation (or an even sample of at most
// maxPoints) at its invocation time and latency, coloured by outcome.
// Operations without an answer have no latency; they sit on the top edge.
// The operations of the minimal counterexample are ringed in red.
func latencyPlot(ops []histories.Operation, others []histories.Event, marked map[int]bool, maxPoints int) ([]byte, error) {
	p := newChart("Latency of each operation", "time since the run started (s)", "latency (ms, log scale)")
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	picked := pickOps(ops, maxPoints)
	lowest, highest := math.Inf(1), 0.0
	for _, i := range picked {
		if op := &ops[i]; op.Return != histories.Infinity {
			l := latency(op)
			lowest, highest = min(lowest, l), max(highest, l)
		}
	}
	if highest == 0 {
		lowest, highest = 0.1, 1
	}
	top := highest * 1.5 // the row of operations without an answer
	bottom := lowest / 2 // the row of lease marks
	y := func(op *histories.Operation) float64 {
		if op.Return == histories.Infinity {
			return top
		}
		return latency(op)
	}
	var pts [classes]plotter.XYs
	for _, i := range picked {
		op := &ops[i]
		pts[classOf(op)] = append(pts[classOf(op)], plotter.XY{X: seconds(op.Call), Y: y(op)})
	}
	var rings plotter.XYs
	for i := range ops {
		if op := &ops[i]; marked[op.ID] {
			rings = append(rings, plotter.XY{X: seconds(op.Call), Y: y(op)})
		}
	}
	if err := shade(p, ops, others, bottom, top*1.3); err != nil {
		return nil, err
	}
	for c := range classes {
		if len(pts[c]) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts[c])
		if err != nil {
			return nil, fmt.Errorf("latency %s: %w", classNames[c], err)
		}
		sc.Shape, sc.Color, sc.Radius = draw.CircleGlyph{}, classColors[c], vg.Points(1.7)
		if c == classUnknown {
			sc.Shape, sc.Radius = draw.TriangleGlyph{}, vg.Points(2.5)
		}
		p.Add(sc)
		p.legend.Add(classNames[c], sc)
	}
	if len(rings) > 0 {
		sc, err := plotter.NewScatter(rings)
		if err != nil {
			return nil, fmt.Errorf("latency marks: %w", err)
		}
		sc.Shape, sc.Color, sc.Radius = draw.RingGlyph{}, violatedColor, vg.Points(5)
		p.Add(sc)
		p.legend.Add("minimal counterexample", sc)
	}
	p.X.Min, p.X.Max = 0, max(seconds(endTime(ops)), 1e-9)
	p.Y.Min, p.Y.Max = bottom, top*1.3
	return render(p)
}

// latency of a completed operation in milliseconds, at least 1ns so that
// it has a place on a log scale.
func latency(op *histories.Operation) float64 {
	return float64(max(op.Return-op.Call, 1)) / 1e6
}

// pickOps returns the indices of the operations to draw: all of the rare
// outcomes (unknown, failed) up to a quarter of the budget, and an even
// sample of the rest.
func pickOps(ops []histories.Operation, budget int) []int {
	var rare, common []int
	for i := range ops {
		if c := classOf(&ops[i]); c == classUnknown || c == classFailed {
			rare = append(rare, i)
		} else {
			common = append(common, i)
		}
	}
	var out []int
	for _, j := range sample(len(rare), budget/4) {
		out = append(out, rare[j])
	}
	for _, j := range sample(len(common), budget-len(out)) {
		out = append(out, common[j])
	}
	return out
}
