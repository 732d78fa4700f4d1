package report

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/fencecheck/fencecheck/histories"
)

// throughputBuckets is the number of time slices throughput is counted in.
const throughputBuckets = 80

// throughputPlot draws the operations completed per second over time, one
// line per outcome; operations without an answer count when they began.
func throughputPlot(ops []histories.Operation, others []histories.Event) ([]byte, error) {
	p := newChart("Throughput by outcome", "time since the run started (s)", "operations per second")
	end := max(endTime(ops), 1)
	width := max(end/throughputBuckets, 1)
	n := int(end/width) + 1
	var counts [classes][]float64
	for c := range counts {
		counts[c] = make([]float64, n)
	}
	for i := range ops {
		op := &ops[i]
		at := op.Return
		if at == histories.Infinity {
			at = op.Call
		}
		counts[classOf(op)][min(int(at/width), n-1)]++
	}
	var top float64
	var lines [classes]plotter.XYs
	for c := range classes {
		for b, k := range counts[c] {
			rate := k / seconds(width)
			top = max(top, rate)
			lines[c] = append(lines[c], plotter.XY{X: seconds(int64(b)*width + width/2), Y: rate})
		}
	}
	top = max(top, 1) * 1.08
	if err := shade(p, ops, others, 0, top); err != nil {
		return nil, err
	}
	for c := range classes {
		if total(counts[c]) == 0 {
			continue
		}
		l, err := plotter.NewLine(lines[c])
		if err != nil {
			return nil, fmt.Errorf("throughput %s: %w", classNames[c], err)
		}
		l.Color, l.Width = classColors[c], vg.Points(1.4)
		p.Add(l)
		p.legend.Add(classNames[c], l)
	}
	p.X.Min, p.X.Max = 0, seconds(end)
	p.Y.Min, p.Y.Max = 0, top
	return render(p)
}

func total(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
