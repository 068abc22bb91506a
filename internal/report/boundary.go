package report

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// PointRecovery is a sweep point's recovery from the script's first event
// with an end (recovery.go), over the point's seeds.
type PointRecovery struct {
	Event     string `json:"event"`
	Recovered int    `json:"recovered"` // seeds on which it recovered
	Seeds     int    `json:"seeds"`
}

// Boundary is a line's metastability boundary on the first axis: the
// highest x at which the line recovered on most seeds, as it did at every
// lower x, and the next x, at which it did not.
type Boundary struct {
	Line  string `json:"line"`
	Event string `json:"event"`
	// Found is false when even the lowest point did not recover on most
	// seeds; Beyond when every point did (the boundary lies past the last).
	Found  bool `json:"found"`
	Beyond bool `json:"beyond"`
	// Recovers is the highest recovering x (when found) and its value as
	// applied; Fails the next x, where most seeds stayed down (when not
	// beyond).
	Recovers      float64 `json:"recovers_x"`
	RecoversValue string  `json:"recovers_value"`
	Fails         float64 `json:"fails_x"`
	FailsValue    string  `json:"fails_value"`
}

// PointRecoveryOf summarises the first transient's verdict of runs (one
// per seed, each with AddRecovery's verdicts); nil when they have none.
func PointRecoveryOf(runs []Run) *PointRecovery {
	if len(runs) == 0 || len(runs[0].Recovery) == 0 {
		return nil
	}
	p := &PointRecovery{Event: runs[0].Recovery[0].Event, Seeds: len(runs)}
	for _, r := range runs {
		if len(r.Recovery) > 0 && r.Recovery[0].Verdict == Recovered {
			p.Recovered++
		}
	}
	return p
}

// recovers reports whether the point recovered on most of its seeds.
func (p *PointRecovery) recovers() bool { return 2*p.Recovered > p.Seeds }

// FindBoundaries fills Boundaries for every line whose points carry a
// recovery (none when the first axis is not numeric).
func (s *Sweep) FindBoundaries() {
	s.Boundaries = nil
	if !s.Numeric() {
		return
	}
	for _, name := range s.Lines() {
		pts := s.line(name)
		if len(pts) == 0 || pts[0].Recovery == nil {
			continue
		}
		b := Boundary{Line: name, Event: pts[0].Recovery.Event, Beyond: true}
		for _, p := range pts {
			if p.Recovery == nil || !p.Recovery.recovers() {
				b.Beyond, b.Fails, b.FailsValue = false, p.X, p.Values[0]
				break
			}
			b.Found, b.Recovers, b.RecoversValue = true, p.X, p.Values[0]
		}
		s.Boundaries = append(s.Boundaries, b)
	}
}

// writeBoundaries prints each line's points' recoveries and its boundary.
func (s *Sweep) writeBoundaries(w io.Writer) error {
	if len(s.Boundaries) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nmetastability boundary: the %s above which most seeds no longer recover from %s (docs/report.md)\n",
		s.Axes[0].Path, s.Boundaries[0].Event)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, b := range s.Boundaries {
		var per string
		for _, p := range s.line(b.Line) {
			if p.Recovery != nil {
				per += fmt.Sprintf(" %s:%d/%d", p.Values[0], p.Recovery.Recovered, p.Recovery.Seeds)
			}
		}
		switch {
		case !b.Found:
			fmt.Fprintf(tw, "  %s\tbelow %s\t(recovered on:%s)\n", b.Line, b.FailsValue, per)
		case b.Beyond:
			fmt.Fprintf(tw, "  %s\tabove %s\t(recovered on:%s)\n", b.Line, b.RecoversValue, per)
		default:
			fmt.Fprintf(tw, "  %s\tbetween %s and %s\t(recovered on:%s)\n", b.Line, b.RecoversValue, b.FailsValue, per)
		}
	}
	return tw.Flush()
}
