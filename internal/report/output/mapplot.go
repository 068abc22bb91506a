package output

import (
	"fmt"
	"image/color"

	"github.com/lblab/lblab/internal/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// mapPanelHeight is the height of one setting's map on the page.
const mapPanelHeight = 11 * vg.Centimeter

// drawMaps draws the sweep's metastability maps (report.Sweep.Maps) into
// c, one panel per setting, one above the other.
func drawMaps(s *report.Sweep, c draw.Canvas) error {
	rows := make([][]*plot.Plot, len(s.Maps))
	for i := range s.Maps {
		p, err := mapPanel(s, &s.Maps[i])
		if err != nil {
			return err
		}
		rows[i] = []*plot.Plot{p}
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: 1, PadY: vg.Centimeter, PadTop: vg.Points(4), PadBottom: vg.Points(4)}
	for i, cs := range plot.Align(rows, tiles, c) {
		rows[i][0].Draw(cs[0])
	}
	return nil
}

// mapPanel is one setting's map: a cell per grid point, coloured from red
// (no seed recovered) to green (every seed did), labelled with the seeds
// that recovered and their median time to recover, and the boundary drawn
// along the cells' edges between those where most seeds recovered and
// those where most did not.
func mapPanel(s *report.Sweep, m *report.Map) (*plot.Plot, error) {
	xs, ys := s.Axes[0], s.Axes[1]
	nx := len(xs.Values)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: seeds that recovered from %s (%s),\nthe median time to recover; black line: the boundary, most seeds recover on one side only",
		s.Lab, m.Title(), s.Trigger(m.Cells[0].Event), report.SeedsText(s.Seeds))
	p.X.Label.Text, p.Y.Label.Text = xs.Path, ys.Path
	p.X.Min, p.X.Max = -0.5, float64(nx)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(ys.Values))-0.5
	p.X.Tick.Marker, p.Y.Tick.Marker = categoryTicks(xs.Values), categoryTicks(ys.Values)
	var at plotter.XYs
	var texts []string
	for j := range ys.Values {
		for i := range xs.Values {
			cell := m.Cell(i, j, nx)
			x, y := float64(i), float64(j)
			sq, err := plotter.NewPolygon(plotter.XYs{{X: x - 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y - 0.5}, {X: x + 0.5, Y: y + 0.5}, {X: x - 0.5, Y: y + 0.5}})
			if err != nil {
				return nil, err
			}
			sq.Color = shareColor(float64(cell.Recovered) / float64(max(cell.Seeds, 1)))
			sq.LineStyle.Color, sq.LineStyle.Width = color.White, vg.Points(1)
			p.Add(sq)
			took := ""
			if cell.MedianAfterS != nil {
				took = fmt.Sprintf(" %gs", *cell.MedianAfterS)
			}
			at = append(at, plotter.XY{X: x, Y: y})
			texts = append(texts, fmt.Sprintf("%d/%d%s", cell.Recovered, cell.Seeds, took))
		}
	}
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: texts})
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].XAlign, labels.TextStyle[i].YAlign = draw.XCenter, draw.YCenter
	}
	p.Add(labels)
	for _, st := range m.Boundary {
		var seg plotter.XYs
		if st.Axis == xs.Path { // between two columns of one row: a vertical edge
			i, j := min(index(xs.Values, st.Recovers), index(xs.Values, st.Fails)), index(ys.Values, st.At)
			e := float64(i) + 0.5
			seg = plotter.XYs{{X: e, Y: float64(j) - 0.5}, {X: e, Y: float64(j) + 0.5}}
		} else { // between two rows of one column: a horizontal edge
			j, i := min(index(ys.Values, st.Recovers), index(ys.Values, st.Fails)), index(xs.Values, st.At)
			e := float64(j) + 0.5
			seg = plotter.XYs{{X: float64(i) - 0.5, Y: e}, {X: float64(i) + 0.5, Y: e}}
		}
		l, err := plotter.NewLine(seg)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = color.Black, vg.Points(3)
		p.Add(l)
	}
	return p, nil
}

// categoryTicks labels the whole numbers 0..n-1 with values.
func categoryTicks(values []string) plot.ConstantTicks {
	ts := make(plot.ConstantTicks, len(values))
	for i, v := range values {
		ts[i] = plot.Tick{Value: float64(i), Label: v}
	}
	return ts
}

func index(values []string, v string) int {
	for i, x := range values {
		if x == v {
			return i
		}
	}
	return 0
}

// shareColor goes from a light red (0: no seed recovered) through a light
// yellow to a light green (1: every seed did), light enough for black text.
func shareColor(share float64) color.Color {
	red, yellow, green := [3]float64{244, 165, 130}, [3]float64{255, 238, 153}, [3]float64{153, 216, 150}
	a, b, t := red, yellow, share*2
	if share > 0.5 {
		a, b, t = yellow, green, share*2-1
	}
	mix := func(k int) uint8 { return uint8(a[k] + (b[k]-a[k])*t + 0.5) }
	return color.RGBA{R: mix(0), G: mix(1), B: mix(2), A: 255}
}
