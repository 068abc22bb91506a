package output

import (
	"fmt"
	"slices"

	"github.com/lblab/lblab/internal/report"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// addBoundaries draws each line's metastability boundary on the sweep's
// plot: a dotted vertical line in the line's colour halfway between its
// last recovering x and the next, named in the legend.
func addBoundaries(s *report.Sweep, p *plot.Plot) error {
	top := 0.0
	for _, pt := range s.Points {
		top = max(top, pt.Figures["p99"].Hi, pt.Figures["p99"].Mean)
	}
	lines := s.Lines()
	for _, b := range s.Boundaries {
		if !b.Found || b.Beyond {
			continue
		}
		x := (b.Recovers + b.Fails) / 2
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
		if err != nil {
			return fmt.Errorf("plot %s's boundary: %w", b.Line, err)
		}
		l.Color = palette[slices.Index(lines, b.Line)%len(palette)]
		l.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
		l.Width = vg.Points(1.5)
		p.Add(l)
		if b.RecoversAbove {
			p.Legend.Add(fmt.Sprintf("%s: no recovery from %s below %s-%s", b.Line, b.Event, b.FailsValue, b.RecoversValue), l)
		} else {
			p.Legend.Add(fmt.Sprintf("%s: no recovery from %s above %s-%s", b.Line, b.Event, b.RecoversValue, b.FailsValue), l)
		}
	}
	return nil
}
