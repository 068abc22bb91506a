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

// palette gives each setting a distinct, colour-blind-friendly colour (Okabe-Ito).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}, {240, 228, 66, 255},
}

// Plot draws the report r into path (.svg or .png): p99 latency over time
// per setting (from the 250 ms series) above a latency CDF per setting, so a
// compare can be looked at rather than read. A panel without data is left
// out; with no data at all, or if drawing fails, it returns an error naming
// why (it never panics).
func Plot(r *report.Report, path string) (err error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("--plot %s: the file must end in .svg or .png", path)
	}
	defer func() { // gonum panics on data it cannot scale; that is an error here
		if p := recover(); p != nil {
			err = fmt.Errorf("--plot %s: cannot draw the report: %v", path, p)
		}
	}()
	var panels []*plot.Plot
	for _, panel := range []func(*report.Report) (*plot.Plot, bool, error){overTime, cdf} {
		p, ok, err := panel(r)
		if err != nil {
			return err
		}
		if ok {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return fmt.Errorf("--plot %s: nothing to draw: no setting has a successful request (no latency series, no CDF)", path)
	}
	const w, h = 22 * vg.Centimeter, 26 * vg.Centimeter
	var canvas vg.CanvasWriterTo
	if ext == ".svg" {
		canvas = vgsvg.New(w, h)
	} else {
		canvas = vgimg.PngCanvas{Canvas: vgimg.New(w, h)}
	}
	dc := draw.New(canvas)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter}
	for i, p := range panels {
		p.Draw(tiles.At(dc, 0, i))
	}
	return writeCanvas(path, canvas)
}

// overTime is the p99 of each 250 ms bin per setting; ok is false when no
// run has a bin with a successful request.
func overTime(r *report.Report) (p *plot.Plot, ok bool, err error) {
	p = plot.New()
	p.Title.Text = fmt.Sprintf("%s: p99 latency over time (250 ms bins)", r.Lab)
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "p99 (ms)"
	p.Legend.Top = true
	for i, run := range r.Runs {
		if len(run.Series) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(run.Series))
		for _, b := range run.Series {
			if b.Succeeded > 0 {
				pts = append(pts, plotter.XY{X: b.T, Y: b.P99})
			}
		}
		if err := addLine(p, run.Name, pts, i); err != nil {
			return nil, false, err
		}
		ok = ok || len(pts) > 0
	}
	return p, ok, nil
}

// cdf is the latency CDF per setting on a log axis; ok is false when no run
// has a positive latency to draw (a log scale cannot show zeros).
func cdf(r *report.Report) (p *plot.Plot, ok bool, err error) {
	p = plot.New()
	p.Title.Text = "latency CDF of successful requests"
	p.X.Label.Text = "latency (ms, log scale)"
	p.Y.Label.Text = "share of requests"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Legend.Left = true
	for i, run := range r.Runs {
		pts := make(plotter.XYs, 0, len(run.CDF))
		for j, v := range run.CDF {
			if v > 0 {
				pts = append(pts, plotter.XY{X: v, Y: float64(j) / float64(len(run.CDF)-1)})
			}
		}
		if err := addLine(p, run.Name, pts, i); err != nil {
			return nil, false, err
		}
		ok = ok || len(pts) > 0
	}
	return p, ok, nil
}

func addLine(p *plot.Plot, name string, pts plotter.XYs, i int) error {
	if len(pts) == 0 {
		return nil
	}
	l, err := plotter.NewLine(pts)
	if err != nil {
		return fmt.Errorf("plot %s: %w", name, err)
	}
	l.Color = palette[i%len(palette)]
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}
