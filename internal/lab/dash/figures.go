package dash

import (
	"encoding/json"
	"slices"

	"github.com/lblab/lblab/internal/report"
)

// The figures the page shows, read from report.Figures: every snapshot
// carries them (Snapshot.Figures), so the counters' tiles and the charts'
// legends take their words, units and direction from the one table on
// both clocks, and a figure added there with a dashboard key or a series
// column shows up on the page with no edit of web/.

// PageFigure is one figure of report.Figures as the page shows it.
type PageFigure struct {
	Name   string `json:"name"`  // its name in report.Figures: the tile's data-key
	Label  string `json:"label"` // what the tile and the legends call it
	Unit   string `json:"unit"`  // how the page prints it: ms, share, per request, count, per s
	Higher bool   `json:"higher"`
	Doc    string `json:"doc"` // what it counts (the tile's tooltip)
	// Window is the field of the snapshot's window its tile shows ("": no
	// tile); Series its column in the snapshot's series ("": no chart).
	Window string `json:"window,omitempty"`
	Series string `json:"series,omitempty"`
}

// perSecond are the dashboard keys whose tile shows the figure as a rate,
// with the window field that holds it per second: the requests offered
// are the loadgen's achieved rate, as on the clients' node; the other
// counts are totals over the 2 s.
var perSecond = map[string]string{"offered": "offered_per_s"}

// rateUnit is the unit of a figure shown per second.
const rateUnit = "per s"

// tileOrder is the order of the counters' tiles, by dashboard key: the
// load, then the latency, then what went wrong. A figure with a dashboard
// key not named here gets its tile after these, in the table's order.
var tileOrder = []string{"offered", "goodput", "attempts_per_request", "p50_ms", "p99_ms",
	"timeouts", "errors", "rejected", "retries", "hedges", "wasted", "failed"}

// PageFigures are the figures of report.Figures with a tile or a chart
// line, the tiled ones first in tile order, then the charted ones in the
// table's order.
func PageFigures() []PageFigure {
	type ranked struct {
		PageFigure
		rank int
	}
	var all []ranked
	for i := range report.Figures {
		f := &report.Figures[i]
		if f.Dashboard == "" && f.Series == "" {
			continue
		}
		p := PageFigure{Name: f.Name, Label: f.Words(), Unit: string(f.Unit), Higher: f.Higher, Doc: f.Doc,
			Window: f.Dashboard, Series: f.Series}
		if k, ok := perSecond[f.Dashboard]; ok {
			p.Window, p.Unit = k, rateUnit
		}
		rank := len(tileOrder) + 1 // charted only: after every tile
		if f.Dashboard != "" {
			rank = len(tileOrder)
			if j := slices.Index(tileOrder, f.Dashboard); j >= 0 {
				rank = j
			}
		}
		all = append(all, ranked{p, rank})
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return a.rank - b.rank })
	out := make([]PageFigure, len(all))
	for i, r := range all {
		out[i] = r.PageFigure
	}
	return out
}

// FigureTable is the snapshot's figures field. It holds nothing: it
// encodes as PageFigures whatever built the snapshot (the live
// controller, lab watch, the page's wasm module, a controller between
// labs), and a decoded snapshot keeps nothing of it (decode the field as
// []PageFigure to read it).
type FigureTable struct{}

// MarshalJSON is PageFigures as JSON.
func (FigureTable) MarshalJSON() ([]byte, error) { return json.Marshal(PageFigures()) }

// UnmarshalJSON takes any value: the table is the build's own.
func (*FigureTable) UnmarshalJSON([]byte) error { return nil }
