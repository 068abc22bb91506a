package output

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"github.com/lblab/lblab/internal/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// SweepPlot draws the sweep s into path (.svg or .png): the mean p99 against
// the first axis, one line per setting (and second-axis value), the 95%
// interval as a band when there are two seeds or more, and each line's knee
// marked with a point and its value, and each metastability boundary
// (report.Sweep.Boundaries) as a dotted vertical line. A sweep with
// metastability maps (two axes and recovery verdicts) draws the maps
// instead, one panel per setting (mapplot.go).
func SweepPlot(s *report.Sweep, path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("--plot %s: the file must end in .svg or .png", path)
	}
	if len(s.Maps) > 0 { // two axes and recovery verdicts: the metastability map
		w, h := 22*vg.Centimeter, vg.Length(len(s.Maps))*mapPanelHeight
		var canvas vg.CanvasWriterTo
		if ext == ".svg" {
			canvas = vgsvg.New(w, h)
		} else {
			canvas = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
		}
		if err := drawMaps(s, draw.New(canvas)); err != nil {
			return err
		}
		return writeCanvas(path, canvas)
	}
	if !s.Numeric() {
		return fmt.Errorf("--plot: the first --vary axis (%s) is not numeric; put the numeric axis first", s.Axes[0].Path)
	}
	p, err := curves(s)
	if err != nil {
		return err
	}
	const w, h = 22 * vg.Centimeter, 15 * vg.Centimeter
	var canvas vg.CanvasWriterTo
	if ext == ".svg" {
		canvas = vgsvg.New(w, h)
	} else {
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	}
	p.Draw(draw.New(canvas))
	return writeCanvas(path, canvas)
}

func curves(s *report.Sweep) (*plot.Plot, error) {
	p := plot.New()
	x := s.Axes[0].Path
	if s.Axes[0].Unit != "" {
		x += " (" + s.Axes[0].Unit + ")"
	}
	p.Title.Text = fmt.Sprintf("%s: p99 against %s (%s)", s.Lab, s.Axes[0].Path, report.SeedsText(s.Seeds))
	if len(s.Seeds) >= 2 {
		p.Title.Text += ", band: 95% interval"
	}
	if len(s.Knees) > 0 {
		p.Title.Text += "\nknee: the highest " + s.Axes[0].Path + " whose mean p99 stays under " + s.Knee.String()
	}
	p.X.Label.Text = x
	p.Y.Label.Text = "p99 (ms)"
	p.Y.Min = 0 // the stick of the hockey stick rises from the floor
	// bottom right: where hockey sticks leave room (low on the left, high on the right)
	for i, name := range s.Lines() {
		if err := addCurve(s, p, name, i); err != nil {
			return nil, err
		}
	}
	if s.Knee.BoundMS > 0 && len(s.Points) > 0 { // one bound for every line: draw it
		lo, hi := s.Points[0].X, s.Points[0].X
		for _, pt := range s.Points {
			lo, hi = min(lo, pt.X), max(hi, pt.X)
		}
		l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: s.Knee.BoundMS}, {X: hi, Y: s.Knee.BoundMS}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = color.Gray{Y: 120}, []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(l)
		p.Legend.Add("knee bound "+report.MS(s.Knee.BoundMS), l)
	}
	if err := addBoundaries(s, p); err != nil {
		return nil, err
	}
	return p, nil
}

// addCurve draws one line: its band, its mean and its knee.
func addCurve(s *report.Sweep, p *plot.Plot, name string, i int) error {
	pts := s.LinePoints(name)
	c := palette[i%len(palette)]
	mean := make(plotter.XYs, len(pts))
	band := make(plotter.XYs, 0, 2*len(pts))
	for j, pt := range pts {
		f := pt.Figures["p99"]
		mean[j] = plotter.XY{X: pt.X, Y: f.Mean}
		band = append(band, plotter.XY{X: pt.X, Y: f.Lo})
	}
	for j := len(pts) - 1; j >= 0; j-- {
		band = append(band, plotter.XY{X: pts[j].X, Y: pts[j].Figures["p99"].Hi})
	}
	if len(s.Seeds) >= 2 {
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return fmt.Errorf("plot %s: %w", name, err)
		}
		poly.Color = color.NRGBA{R: c.R, G: c.G, B: c.B, A: 60}
		poly.LineStyle.Width = 0
		p.Add(poly)
	}
	l, err := plotter.NewLine(mean)
	if err != nil {
		return fmt.Errorf("plot %s: %w", name, err)
	}
	l.Color, l.Width = c, vg.Points(1.5)
	if i >= len(palette) { // past the palette's colours, dashes tell lines apart
		l.Dashes = []vg.Length{vg.Points(5), vg.Points(2)}
	}
	p.Add(l)
	legend := name
	for _, k := range s.Knees {
		switch {
		case k.Line != name:
		case !k.Found:
			legend += " (no knee: over the bound from the start)"
		case k.Beyond:
			legend += " (knee >= " + k.Value + ")"
		default:
			legend += " (knee " + k.Value + ")"
		}
	}
	p.Legend.Add(legend, l)
	for _, k := range s.Knees {
		if k.Line != name || !k.Found || k.Beyond { // a knee past the last point is only in the legend
			continue
		}
		at := plotter.XYs{{X: k.X, Y: k.P99}}
		dot, err := plotter.NewScatter(at)
		if err != nil {
			return err
		}
		dot.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		label, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: []string{"knee " + k.Value}})
		if err != nil {
			return err
		}
		label.Offset = vg.Point{X: vg.Points(6), Y: vg.Points(-12)}
		for j := range label.TextStyle {
			label.TextStyle[j].Color = c
		}
		p.Add(dot, label)
	}
	return nil
}
