package dash

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/report"
)

// The dashboard's goodput is report.Goodput over the last 2 s: when
// requests keep being started and none ends (all of them stuck), it is 0,
// as in a bin of the report, not unknown; only a window where nothing was
// started or ended has none (null).
func TestWindowGoodputIsTheReports(t *testing.T) {
	start := time.Unix(1000, 0)
	var d Deriver
	var offered uint64
	for i := 0; i <= 20; i++ { // 5 s at 100 requests/s; the first 50 succeed, then nothing ends
		d.Add(1, start, fakeReading(start, time.Duration(i)*250*time.Millisecond, offered, min(offered, 50), 0, 0, 0))
		offered += 25
	}
	if w := d.window(); w.Offered == 0 || float64(w.Goodput) != 0 {
		t.Errorf("stuck window: %d offered, goodput %v, want 0", w.Offered, w.Goodput)
	}
	var idle Deriver
	for i := 0; i <= 20; i++ {
		idle.Add(1, start, fakeReading(start, time.Duration(i)*250*time.Millisecond, 0, 0, 0, 0, 0))
	}
	if g := idle.window().Goodput; !math.IsNaN(float64(g)) {
		t.Errorf("idle window: goodput %v, want null", g)
	}
}

// Every figure of the report's table that names a dashboard key is a
// field of the snapshot's window, and every figure the window carries is
// one of the table's (the rest of the window is named here with why).
func TestWindowFiguresAreTheTables(t *testing.T) {
	notFigures := map[string]string{
		"seconds":       "the window's length",
		"offered_per_s": "a rate, the offered figure per second",
		"latency_note":  "where the percentiles come from",
		"beyond":        "which percentiles are past the histogram's largest bound",
	}
	typ := reflect.TypeFor[Window]()
	var keys []string
	for i := range typ.NumField() {
		keys = append(keys, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	declared := map[string]bool{}
	for _, f := range report.Figures {
		if f.Dashboard == "" {
			continue
		}
		declared[f.Dashboard] = true
		if !slices.Contains(keys, f.Dashboard) {
			t.Errorf("figure %s: the snapshot's window has no %q", f.Name, f.Dashboard)
		}
	}
	for _, k := range keys {
		if !declared[k] && notFigures[k] == "" {
			t.Errorf("the snapshot's window carries %q, which is no figure of report.Figures", k)
		}
	}
}

// jsonKeys are the JSON names of typ's fields.
func jsonKeys(typ reflect.Type) []string {
	var keys []string
	for i := range typ.NumField() {
		keys = append(keys, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	return keys
}

// Every snapshot the page gets, live or virtual or between labs, carries
// the figure table: each figure of report.Figures with a dashboard key or
// a series column, with its words, unit and direction, naming a field of
// the window and a column of the series that exist.
func TestSnapshotCarriesTheFigureTable(t *testing.T) {
	lab, _, err := ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Unix(1000, 0)
	var d Deriver
	var cur *Reading
	for i := 0; i <= 8; i++ {
		cur = fakeReading(start, time.Duration(i)*250*time.Millisecond, uint64(25*i), uint64(25*i), 0, 0, 0)
		d.Add(1, start, cur)
	}
	var first atomic.Pointer[Controls]
	snaps := map[string]*Snapshot{
		"live":     LiveSnapshot(LiveRun{Lab: lab, Started: start, First: &first}, &d, cur, "up"),
		"virtual":  VirtualSnapshot(VirtualView{Lab: lab, WindowP50: math.NaN(), WindowP99: math.NaN()}),
		"no lab":   {Mode: "up", Status: "starting rr-slow"},
		"stranger": {},
	}
	windowKeys, seriesKeys := jsonKeys(reflect.TypeFor[Window]()), jsonKeys(reflect.TypeFor[Series]())
	for what, s := range snaps {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Figures []PageFigure `json:"figures"`
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		byName := map[string]PageFigure{}
		for _, p := range got.Figures {
			byName[p.Name] = p
			if p.Window != "" && !slices.Contains(windowKeys, p.Window) {
				t.Errorf("%s: figure %s: the window has no %q", what, p.Name, p.Window)
			}
			if p.Series != "" && !slices.Contains(seriesKeys, p.Series) {
				t.Errorf("%s: figure %s: the series have no %q", what, p.Name, p.Series)
			}
		}
		for i := range report.Figures {
			f := &report.Figures[i]
			p, ok := byName[f.Name]
			if f.Dashboard == "" && f.Series == "" {
				if ok {
					t.Errorf("%s: the page gets figure %s, which neither a tile nor a chart shows", what, f.Name)
				}
				continue
			}
			if !ok {
				t.Errorf("%s: figure %s (dashboard %q, series %q) is missing from the snapshot's figures", what, f.Name, f.Dashboard, f.Series)
				continue
			}
			window, unit := f.Dashboard, string(f.Unit)
			if k, ok := perSecond[f.Dashboard]; ok {
				window, unit = k, rateUnit
			}
			want := PageFigure{Name: f.Name, Label: f.Words(), Unit: unit, Higher: f.Higher, Doc: f.Doc, Window: window, Series: f.Series}
			if p != want {
				t.Errorf("%s: figure %s reaches the page as %+v, want %+v", what, f.Name, p, want)
			}
		}
		// The tiles come first, in tile order.
		var tiles []string
		for _, p := range got.Figures {
			if p.Window != "" {
				tiles = append(tiles, p.Name)
			}
		}
		if n := len(tiles); n == 0 || !slices.Equal(tiles, figureNames(got.Figures[:n])) {
			t.Errorf("%s: the tiled figures are not first: %v", what, figureNames(got.Figures))
		}
	}
	// Every column of the series is a figure's but for these.
	notFigures := map[string]string{"t": "the time axis", "target": "the loadgen's target rate, a setting",
		"servers": "the servers' names", "in_server": "a server's own reading", "limit": "a server's own reading"}
	for _, k := range seriesKeys {
		if notFigures[k] == "" && !slices.ContainsFunc(report.Figures, func(f report.FigureSpec) bool { return f.Series == k }) {
			t.Errorf("the snapshot's series carry %q, the series column of no figure of report.Figures", k)
		}
	}
	// The tile order names only figures of the table.
	for _, k := range tileOrder {
		if !slices.ContainsFunc(report.Figures, func(f report.FigureSpec) bool { return f.Dashboard == k }) {
			t.Errorf("tileOrder names %q, the dashboard key of no figure of report.Figures", k)
		}
	}
	for k := range perSecond {
		if !slices.ContainsFunc(report.Figures, func(f report.FigureSpec) bool { return f.Dashboard == k }) {
			t.Errorf("perSecond names %q, the dashboard key of no figure of report.Figures", k)
		}
	}
	if got := figureNames(PageFigures())[:4]; !slices.Equal(got, []string{"requests", "goodput", "attempts_per_request", "p50"}) {
		t.Errorf("the first tiles are %v, want the page's order: offered, goodput, attempts / request, p50", got)
	}
}

func figureNames(ps []PageFigure) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}
