package report

import (
	"fmt"
	"sort"
)

// Headline names a report's headline figure: the figure a lab is about
// (its report.headline), which the table ranks the settings by. The
// lab file's words are these (labfile's report.headline setting reads
// Headlines).
type Headline string

// The headline figures (docs/labfile.md, "report").
const (
	HeadlineP99      Headline = "p99"       // the 99th percentile latency of successful requests, lowest first
	HeadlineGoodput  Headline = "goodput"   // the share of requests that succeeded, highest first
	HeadlineMaxQueue Headline = "max_queue" // the fullest server's longest queue, lowest first
)

// headlineFigure is a figure a lab can rank its settings by: how to read it off a run and which way is
// better. ok is false when the run has no such figure (no request
// succeeded: no latency); such runs rank last.
type headlineFigure struct {
	caption string // for the line above the table
	column  string // its column, when the main table does not already have one
	value   func(r *Run) (v float64, ok bool)
	higher  bool // higher is better
	// ofServed: a figure of the successful requests alone (rank.go)
	ofServed bool
}

// fromTable is the headline of a figure of the table (Figures), which says
// how to read it, whether the run has it and which way is better.
func fromTable(name, caption string) headlineFigure {
	f := mustFigure(name)
	return headlineFigure{caption: caption, higher: f.Higher, ofServed: f.OfServed,
		value: func(r *Run) (float64, bool) { return f.Of(r), f.Has == nil || f.Has(r) }}
}

// headlines is each headline with its figure, in documentation order:
// the one list of the headlines a report ranks by (Headlines).
var headlines = []struct {
	name   Headline
	figure headlineFigure
}{
	{HeadlineP99, fromTable("p99", "p99 latency of successful requests")},
	{HeadlineGoodput, fromTable("goodput", "goodput, the share of requests that succeeded")},
	{HeadlineMaxQueue, headlineFigure{caption: "the fullest server's longest queue (max queue)", column: "max queue",
		value: func(r *Run) (float64, bool) {
			if s := r.Fullest(); s != nil {
				return float64(s.MaxQueue), true
			}
			return 0, false
		}}},
}

// Headlines lists the headline figures in documentation order: the words
// a lab's report.headline may take.
var Headlines = func() []Headline {
	out := make([]Headline, len(headlines))
	for i, h := range headlines {
		out[i] = h.name
	}
	return out
}()

// headlineOf is the figure of headline h; ok is false for a name that is
// no headline.
func headlineOf(h Headline) (f headlineFigure, ok bool) {
	for _, e := range headlines {
		if e.name == h {
			return e.figure, true
		}
	}
	return headlineFigure{}, false
}

// headline is the report's headline figure (p99 unless the lab names another).
func (r *Report) headline() headlineFigure {
	if f, ok := headlineOf(r.Headline); ok {
		return f
	}
	f, _ := headlineOf(HeadlineP99)
	return f
}

// SeedsFigure is the figure the settings are ranked by over seeds: the
// headline when it is a figure carried over seeds (p99, goodput), else p99.
func (r *Report) SeedsFigure() string {
	if f, ok := FigureOf(string(r.Headline)); ok && f.Seeds {
		return f.Name
	}
	return "p99"
}

// Ranked returns the runs best first by the headline figure, by the
// report's one rule (rank.go): by a latency, the runs that serve most of
// their requests first; runs without the figure come last.
func (r *Report) Ranked() []Run {
	h := r.headline()
	runs := append([]Run(nil), r.Runs...)
	at := func(run *Run) standing {
		v, ok := h.value(run)
		return standing{has: ok, value: v, goodput: run.Goodput, name: run.Name}
	}
	sort.SliceStable(runs, func(i, j int) bool {
		return rankBefore(h.higher, h.ofServed, at(&runs[i]), at(&runs[j]))
	})
	return runs
}

// Fullest is the server with the longest queue of the run (the first of
// equals), or nil without servers.
func (r *Run) Fullest() *Server {
	var best *Server
	for i := range r.Servers {
		if best == nil || r.Servers[i].MaxQueue > best.MaxQueue {
			best = &r.Servers[i]
		}
	}
	return best
}

// headlineCell is a run's cell in the headline column: "141 (s901)".
func headlineCell(h Headline, run *Run) string {
	if h == HeadlineMaxQueue {
		if s := run.Fullest(); s != nil {
			return fmt.Sprintf("%d (%s)", s.MaxQueue, s.Name)
		}
	}
	return "-"
}
