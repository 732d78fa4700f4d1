package report

import (
	"bytes"
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/fencecheck/fencecheck/histories"
)

var classColors = [classes]color.RGBA{
	classAccepted: {0x2e, 0x7d, 0x32, 0xff}, // green
	classRejected: {0x15, 0x65, 0xc0, 0xff}, // blue: the protection working
	classRead:     {0x9e, 0x9e, 0x9e, 0xff}, // grey
	classUnknown:  {0xef, 0x6c, 0x00, 0xff}, // orange
	classFailed:   {0x6d, 0x4c, 0x41, 0xff}, // brown
}

var (
	windowColor   = color.NRGBA{0xff, 0x98, 0x00, 0x30}
	leaseColor    = color.RGBA{0x6a, 0x1b, 0x9a, 0xff}
	violatedColor = color.RGBA{0xd3, 0x2f, 0x2f, 0xff}
)

// maxLeaseMarks bounds the lease reassignments drawn; beyond it they are
// sampled.
const maxLeaseMarks = 400

// chart is a plot with its legend drawn beside it rather than over the
// data.
type chart struct {
	*plot.Plot
	legend plot.Legend
}

// newChart makes a plot in the report's sans-serif style.
func newChart(title, x, y string) *chart {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, x, y
	sans := func(s *font.Font, size vg.Length) { s.Typeface, s.Variant, s.Size = "Liberation", "Sans", size }
	sans(&p.Title.TextStyle.Font, 13)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle.Font, 11)
		sans(&a.Tick.Label.Font, 10)
	}
	p.Title.Padding = vg.Points(6)
	p.Add(plotter.NewGrid())
	l := plot.NewLegend()
	sans(&l.TextStyle.Font, 10)
	l.Top, l.Left = true, true
	return &chart{Plot: p, legend: l}
}

// seconds converts history time to the plots' unit.
func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// shade draws the fault windows as bands from bottom to top, behind the
// data, and the lease reassignments as marks at the bottom.
func shade(p *chart, ops []histories.Operation, others []histories.Event, bottom, top float64) error {
	end := endTime(ops)
	ws := mergeWindows(faultWindows(others, end), end)
	for i, w := range ws {
		band, err := plotter.NewPolygon(plotter.XYs{
			{X: seconds(w.from), Y: bottom}, {X: seconds(w.to), Y: bottom}, {X: seconds(w.to), Y: top}, {X: seconds(w.from), Y: top},
		})
		if err != nil {
			return fmt.Errorf("fault window: %w", err)
		}
		band.Color, band.LineStyle.Width = windowColor, 0
		p.Add(band)
		if i == 0 {
			p.legend.Add("fault window", band)
		}
	}
	times := reassignments(others)
	if len(times) == 0 {
		return nil
	}
	var marks plotter.XYs
	for _, i := range sample(len(times), maxLeaseMarks) {
		marks = append(marks, plotter.XY{X: seconds(times[i]), Y: bottom})
	}
	sc, err := plotter.NewScatter(marks)
	if err != nil {
		return fmt.Errorf("lease marks: %w", err)
	}
	sc.Shape, sc.Color, sc.Radius = draw.PyramidGlyph{}, leaseColor, vg.Points(2)
	p.Add(sc)
	p.legend.Add("lease reassigned", sc)
	return nil
}

// Sizes of a rendered chart.
const (
	chartWidth  = 10 * vg.Inch
	chartHeight = 3.2 * vg.Inch
	legendWidth = 2 * vg.Inch
)

// render writes the chart as an SVG for inlining in HTML: no XML prolog,
// a font list browsers can fall back on, a size the page's CSS can scale.
func render(ch *chart) ([]byte, error) {
	c := vgsvg.New(chartWidth, chartHeight)
	dc := draw.New(c)
	ch.Draw(draw.Crop(dc, 0, -legendWidth, 0, 0))
	ch.legend.Draw(draw.Crop(dc, chartWidth-legendWidth+vg.Points(10), 0, 0, -vg.Points(28)))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("render plot: %w", err)
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	s = strings.ReplaceAll(s, "font-family:Liberation Sans;", "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	s = strings.Replace(s, "<svg ", `<svg role="img" class="plot" `, 1)
	return []byte(s), nil
}
