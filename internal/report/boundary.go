package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// PointRecovery is a sweep point's recovery from the script's first event
// with an end (recovery.go), over the point's seeds.
type PointRecovery struct {
	Event     string `json:"event"`
	Recovered int    `json:"recovered"` // seeds on which it recovered
	Seeds     int    `json:"seeds"`
	// AfterS is each seed's time from the event's end until back, in the
	// order of the sweep's seeds (null where it did not recover).
	AfterS []*float64 `json:"recovered_after_s"`
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
	// RecoversAbove turns the boundary round, for an axis along which the
	// trigger gets milder (a slowdown's speed): the lowest point did not
	// recover on most seeds and the highest did, and Recovers is then the
	// lowest x from which every higher x recovered, Fails the x below it.
	RecoversAbove bool `json:"recovers_above,omitempty"`
	// Recovers is the highest recovering x (when found) and its value as
	// applied; Fails the next x, where most seeds stayed down (when not
	// beyond).
	Recovers      float64 `json:"recovers_x"`
	RecoversValue string  `json:"recovers_value"`
	Fails         float64 `json:"fails_x"`
	FailsValue    string  `json:"fails_value"`
}

// PointRecoveryOf summarises the first transient's verdict of runs (one
// per seed, each with the verdicts internal/report/verdict gives it); nil
// when they have none.
func PointRecoveryOf(runs []Run) *PointRecovery {
	if len(runs) == 0 || len(runs[0].Recovery) == 0 {
		return nil
	}
	p := &PointRecovery{Event: runs[0].Recovery[0].Event, Seeds: len(runs)}
	for _, r := range runs {
		var after *float64
		if len(r.Recovery) > 0 && r.Recovery[0].Verdict == Recovered {
			p.Recovered++
			after = r.Recovery[0].AfterS
		}
		p.AfterS = append(p.AfterS, after)
	}
	return p
}

// MedianAfter is the median over the seeds that recovered of the time it
// took them (nil when none did), as lab sim --seeds gives it per setting.
func (p *PointRecovery) MedianAfter() *float64 {
	var after []float64
	for _, a := range p.AfterS {
		if a != nil {
			after = append(after, *a)
		}
	}
	if len(after) == 0 {
		return nil
	}
	m := median(after)
	return &m
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
		if last := pts[len(pts)-1]; !pts[0].Recovery.recovers() && last.Recovery != nil && last.Recovery.recovers() {
			b = Boundary{Line: name, Event: pts[0].Recovery.Event, Found: true, RecoversAbove: true}
			for i := len(pts) - 1; i > 0 && pts[i].Recovery != nil && pts[i].Recovery.recovers(); i-- {
				b.Recovers, b.RecoversValue, b.Fails, b.FailsValue = pts[i].X, pts[i].Values[0], pts[i-1].X, pts[i-1].Values[0]
			}
			s.Boundaries = append(s.Boundaries, b)
			continue
		}
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
	event := s.Trigger(s.Boundaries[0].Event)
	if slices.ContainsFunc(s.Boundaries, func(b Boundary) bool { return b.RecoversAbove }) {
		fmt.Fprintf(w, "\nmetastability boundary: where along %s most seeds stop recovering from %s (docs/report.md)\n", s.Axes[0].Path, event)
	} else {
		fmt.Fprintf(w, "\nmetastability boundary: the %s above which most seeds no longer recover from %s (docs/report.md)\n",
			s.Axes[0].Path, event)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, b := range s.Boundaries {
		var per string
		for _, p := range s.line(b.Line) {
			if p.Recovery != nil {
				per += fmt.Sprintf(" %s:%d/%d", p.Values[0], p.Recovery.Recovered, p.Recovery.Seeds)
			}
		}
		switch {
		case b.RecoversAbove:
			fmt.Fprintf(tw, "  %s\tbetween %s and %s, recovering above\t(recovered on:%s)\n", b.Line, b.FailsValue, b.RecoversValue, per)
		case !b.Found:
			fmt.Fprintf(tw, "  %s\tbelow %s, the lowest point\t(recovered on:%s)\n", b.Line, b.FailsValue, per)
		case b.Beyond:
			fmt.Fprintf(tw, "  %s\tabove %s: every point recovered\t(recovered on:%s)\n", b.Line, b.RecoversValue, per)
		default:
			fmt.Fprintf(tw, "  %s\tbetween %s and %s\t(recovered on:%s)\n", b.Line, b.RecoversValue, b.FailsValue, per)
		}
	}
	return tw.Flush()
}

// Trigger writes a point's transient (its event as the event log writes
// it) for the whole sweep: a field an axis varies (events[0].speed) is
// written as speed=…, since it differs from point to point.
func (s *Sweep) Trigger(event string) string {
	words := strings.Fields(event)
	for _, a := range s.Axes {
		_, field, ok := strings.Cut(a.Path, "].")
		if !ok || !strings.HasPrefix(a.Path, "events[") {
			continue
		}
		for i, w := range words {
			if strings.HasPrefix(w, field+"=") {
				words[i] = field + "=…"
			}
		}
	}
	return strings.Join(words, " ")
}
