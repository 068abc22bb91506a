package watch

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// mapFile is the JSON of
//
//	lab sweep retry-storm --vary events[0].speed=0.5,0.6,0.8 --vary events[0].for=500ms,1500ms \
//	    --compare retries,retry-budget --seeds 3 --duration 15s --json
const mapFile = "testdata/retry-storm-map.json"

func readMap(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(mapFile)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// watchingMap is a paused server of retry-storm showing the map of mapFile.
func watchingMap(t *testing.T) *Server {
	t.Helper()
	l, setting := scenarioLab(t, "retry-storm")
	srv, err := New(Options{Lab: l, Scenario: "retry-storm", Setting: setting, Paused: true, MapFile: "map.json", Map: readMap(t)})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

func ask(t *testing.T, s *Server, method, path string, body any) dash.Answer {
	t.Helper()
	var data []byte
	switch b := body.(type) {
	case nil:
	case string:
		data = []byte(b)
	default:
		var err error
		if data, err = json.Marshal(b); err != nil {
			t.Fatal(err)
		}
	}
	return s.Answer(dash.NewRequest(method, path, data))
}

// A click on a cell (POST /api/map/cell) plays, from 0, the lab the sweep
// ran at that grid point: retry-storm on the sweep's duration, both axes
// applied as lab sweep applies them, the seed asked for, under the map's
// setting; GET /api/map and the snapshots then name the cell playing.
func TestMapCellPlaysTheSweepsPoint(t *testing.T) {
	s := watchingMap(t)
	a := ask(t, s, "GET", "/api/map", nil)
	var got struct {
		Lab   string
		Seeds []uint64
		Axes  []struct {
			Path   string
			Values []string
		}
		Maps []struct {
			Setting string
			Cells   []struct{ X, Y string }
		}
		Playing *MapCell
	}
	if err := json.Unmarshal(a.Body, &got); a.Status != 200 || err != nil {
		t.Fatalf("GET /api/map: %d %v %s", a.Status, err, a.Body)
	}
	if got.Lab != "retry-storm" || len(got.Maps) != 2 || got.Maps[1].Setting != "retry-budget" || len(got.Maps[0].Cells) != 6 ||
		len(got.Axes) != 2 || got.Axes[1].Path != "events[0].for" || len(got.Seeds) != 3 || got.Playing != nil {
		t.Fatalf("GET /api/map: %+v", got)
	}

	a = ask(t, s, "POST", "/api/map/cell", map[string]any{"setting": "retry-budget", "x": "0.5", "y": "1500ms", "seed": 2})
	if a.Status != 200 {
		t.Fatalf("POST /api/map/cell: %d %s", a.Status, a.Body)
	}
	s.mu.Lock()
	played, setting, now, paused := s.sess.Lab(), s.setting, s.sess.Now(), s.paused
	s.mu.Unlock()
	if setting != "retry-budget" || now != 0 || paused {
		t.Errorf("after the click: setting %q at %v, paused %v; want retry-budget from 0, playing", setting, now, paused)
	}
	want, _ := scenarioLab(t, "retry-storm")
	compare := want.Compare
	want.Compare, want.Duration, want.Seed = nil, 15*time.Second, 2
	for _, kv := range [][2]string{{"events[0].speed", "0.5"}, {"events[0].for", "1500ms"}} {
		var err error
		if want, err = want.WithAxis(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	var budget labfile.Setting
	for _, c := range compare {
		if c.Name == "retry-budget" {
			budget = c
		}
	}
	want, err := want.WithSetting(budget)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := yamlOf(t, played), yamlOf(t, want); g != w {
		t.Errorf("the lab playing:\n%s\nwant the sweep's point:\n%s", g, w)
	}
	if e := played.Events[0]; e.Speed != 0.5 || e.For != 1500*time.Millisecond {
		t.Errorf("the trigger playing: speed %v for %v, want 0.5 for 1.5s", e.Speed, e.For)
	}

	s.Tick(time.Now())
	var snap struct{ Map *mapState }
	if _, data := s.Latest(); json.Unmarshal(data, &snap) != nil || snap.Map == nil || snap.Map.Playing == nil ||
		*snap.Map.Playing != (MapCell{Setting: "retry-budget", X: "0.5", Y: "1500ms", Seed: 2}) {
		t.Errorf("the snapshot's map: %+v, want the cell playing", snap.Map)
	}
	// another lab played: no cell is
	if a := ask(t, s, "POST", "/api/scenario", `{"name":"rr-slow"}`); a.Status != 200 {
		t.Fatalf("POST /api/scenario: %d %s", a.Status, a.Body)
	}
	if a := ask(t, s, "GET", "/api/map", nil); !strings.Contains(string(a.Body), `"playing":null`) {
		t.Errorf("GET /api/map after another scenario: %s, want no cell playing", a.Body)
	}
	// and a cell plays retry-storm again, the map's lab
	if a := ask(t, s, "POST", "/api/map/cell", `{"x":"0.8","y":"500ms"}`); a.Status != 200 {
		t.Fatalf("POST /api/map/cell: %d %s", a.Status, a.Body)
	}
	s.mu.Lock()
	played, setting = s.sess.Lab(), s.setting
	s.mu.Unlock()
	if played.Name != "retry-storm" || setting != "retries" || played.Seed != 1 || played.Events[0].Speed != 0.8 {
		t.Errorf("a cell after another scenario: %s under %q seed %d speed %v, want retry-storm under retries (the first map), seed 1, 0.8",
			played.Name, setting, played.Seed, played.Events[0].Speed)
	}
}

func yamlOf(t *testing.T, l *labfile.Lab) string {
	t.Helper()
	data, err := labyaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A map file that is no map of the lab watched is refused before anything
// plays (lab watch --map exits 2 with it), saying what in it is wrong.
func TestMapFileRefused(t *testing.T) {
	good := readMap(t)
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		data, _ := json.Marshal(m)
		return string(data)
	}
	maps := func(m map[string]any) []any { return m["maps"].([]any) }
	cells := func(m map[string]any, i int) []any { return maps(m)[i].(map[string]any)["cells"].([]any) }
	for _, c := range []struct {
		what, lab, json, want string
	}{
		{"not JSON", "retry-storm", "lab: retry-storm\n", "map.json: not a sweep report of lab sweep --json"},
		{"a lab sim report", "retry-storm", `{"runs": []}`, `map.json: not a sweep report of lab sweep --json: json: unknown field "runs"`},
		{"empty", "retry-storm", `{}`, "no lab or no axes"},
		{"another lab's", "rr-slow", string(good), "map.json: a map of lab retry-storm, not of rr-slow (the lab watched)"},
		{"one axis", "retry-storm", edit(func(m map[string]any) { m["axes"] = m["axes"].([]any)[:1] }), "a sweep over 1 axis; a map needs two"},
		{"no maps", "retry-storm", edit(func(m map[string]any) { delete(m, "maps") }), "has no maps (maps[])"},
		{"a cell short", "retry-storm", edit(func(m map[string]any) {
			maps(m)[1].(map[string]any)["cells"] = cells(m, 1)[:5]
		}), "maps[1] (retry-budget): 5 cells, but its axes make a grid of 3 x 2"},
		{"a cell elsewhere", "retry-storm", edit(func(m map[string]any) { cells(m, 0)[2].(map[string]any)["x"] = "0.7" }),
			"maps[0].cells[2]: at events[0].speed=0.7 events[0].for=500ms, but the grid has events[0].speed=0.8 events[0].for=500ms there"},
		{"an unknown setting", "retry-storm", edit(func(m map[string]any) { maps(m)[0].(map[string]any)["setting"] = "retries-x" }),
			`maps[0]: setting "retries-x": not a compare setting of retry-storm`},
		{"a value that does not apply", "retry-storm", edit(func(m map[string]any) {
			m["axes"].([]any)[0].(map[string]any)["values"] = []any{"0.5", "0.6", "-1"}
			cells(m, 0)[2].(map[string]any)["x"], cells(m, 0)[5].(map[string]any)["x"] = "-1", "-1"
			cells(m, 1)[2].(map[string]any)["x"], cells(m, 1)[5].(map[string]any)["x"] = "-1", "-1"
		}), "map.json: axes[0]: at events[0].speed=-1:"},
		{"no duration", "retry-storm", edit(func(m map[string]any) { m["duration_s"] = 0 }), "duration_s: must be more than 0"},
	} {
		l, setting := scenarioLab(t, c.lab)
		_, err := New(Options{Lab: l, Scenario: c.lab, Setting: setting, Paused: true, MapFile: "map.json", Map: []byte(c.json)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New: %v, want an error with %q", c.what, err, c.want)
		}
	}
}

// The map's API refuses what it cannot do with a 4xx and a JSON body
// naming what was wrong; a map posted from the page (POST /api/map) is
// checked as lab watch --map checks it.
func TestMapAPIRefusals(t *testing.T) {
	plain := watching(t, "retry-storm")
	s := watchingMap(t)
	for _, c := range []struct {
		what         string
		s            *Server
		method, path string
		body         any
		code         int
		want         string
	}{
		{"no map: GET", plain, "GET", "/api/map", nil, 404, "no map loaded: lab watch LAB --map FILE.json"},
		{"no map: a cell", plain, "POST", "/api/map/cell", `{"x":"0.5","y":"500ms"}`, 404, "no map loaded"},
		{"another lab's map", watching(t, "rr-slow"), "POST", "/api/map", mapIn{File: "m.json", JSON: string(readMap(t))}, 400,
			"m.json: a map of lab retry-storm, not of rr-slow"},
		{"not a map", plain, "POST", "/api/map", mapIn{JSON: `{"mode":"sim"}`}, 400, "map.json: not a sweep report"},
		{"an unknown field", plain, "POST", "/api/map", `{"jsn":"{}"}`, 400, `unknown field "jsn"`},
		{"a value off the axis", s, "POST", "/api/map/cell", `{"x":"0.7","y":"500ms"}`, 400,
			`x: "0.7" is not a value of the map's axis events[0].speed (0.5, 0.6, 0.8)`},
		{"no y", s, "POST", "/api/map/cell", `{"x":"0.5"}`, 400, `y: "" is not a value of the map's axis events[0].for (500ms, 1500ms)`},
		{"a seed not swept", s, "POST", "/api/map/cell", `{"x":"0.5","y":"500ms","seed":4}`, 400, "seed: 4 is not one of the map's seeds (1, 2, 3)"},
		{"a setting without a map", s, "POST", "/api/map/cell", `{"setting":"no-retries","x":"0.5","y":"500ms"}`, 400,
			`setting: "no-retries" has no map in map.json (retries, retry-budget)`},
		{"a negative seed", s, "POST", "/api/map/cell", `{"x":"0.5","y":"500ms","seed":-1}`, 400, "bad JSON body"},
	} {
		a := ask(t, c.s, c.method, c.path, c.body)
		var body struct {
			Error string
			Code  int
		}
		if err := json.Unmarshal(a.Body, &body); err != nil || a.Status != c.code || body.Code != c.code || !strings.Contains(body.Error, c.want) {
			t.Errorf("%s: %d %s, want %d with %q", c.what, a.Status, a.Body, c.code, c.want)
		}
	}
	// a map posted from the page, then a cell of it
	if a := ask(t, plain, "POST", "/api/map", mapIn{File: "m.json", JSON: string(readMap(t))}); a.Status != 200 || !strings.Contains(string(a.Body), `"file":"m.json"`) {
		t.Fatalf("POST /api/map: %d %.300s", a.Status, a.Body)
	}
	if a := ask(t, plain, "POST", "/api/map/cell", `{"x":"0.6","y":"1500ms","seed":3}`); a.Status != 200 {
		t.Fatalf("POST /api/map/cell after POST /api/map: %d %s", a.Status, a.Body)
	}
	plain.mu.Lock()
	l := plain.sess.Lab()
	plain.mu.Unlock()
	if l.Events[0].Speed != 0.6 || l.Events[0].For != 1500*time.Millisecond || l.Seed != 3 || l.Duration != 15*time.Second {
		t.Errorf("the cell posted plays speed %v for %v seed %d for %v, want 0.6, 1.5s, 3, 15s", l.Events[0].Speed, l.Events[0].For, l.Seed, l.Duration)
	}
}
