package watch

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/sim"
)

// The metastability map in the page (docs/sweeps.md#metastability-map):
// a map of `lab sweep --json` (its maps[]), given to lab watch --map or
// posted from the page (POST /api/map), is shown as a grid; a click on a
// cell plays that cell (POST /api/map/cell): the lab the map is of, with
// the cell's two axis values applied as lab sweep applies them
// (labfile.Lab.WithAxis), on the sweep's duration and one of its seeds,
// under the map's setting, from virtual 0.

// pageMap is a map loaded and checked against its lab (loadMap).
type pageMap struct {
	file     string
	sweep    *report.Sweep // as given, without its points (the page reads the maps)
	given    *labfile.Lab  // the lab as given, with its compare list
	base     *labfile.Lab  // given on the sweep's duration, without the compare list: each cell applies its values to it
	scenario string        // the built-in scenario the lab is, if it is one
	settings []labfile.Setting
	loaded   int // which map this is: the page fetches GET /api/map when it changes
}

// MapCell is a cell played: one map's setting at one grid point, on one
// of the sweep's seeds (POST /api/map/cell's body, and snapshots' map.playing).
type MapCell struct {
	Setting string `json:"setting"`
	X       string `json:"x"`
	Y       string `json:"y"`
	Seed    uint64 `json:"seed"`
}

// mapState is what every snapshot says of the map (nil without one): the
// map loaded and the cell playing, if one is.
type mapState struct {
	Loaded  int      `json:"loaded"`
	Playing *MapCell `json:"playing"`
}

// loadMap reads a sweep report (lab sweep --json) named file, the map of
// given (the lab as given, with its compare list; the built-in scenario
// it is, if it is one), and checks it before
// anything plays: a strict sweep report of that lab with two axes and at
// least one map, whose grid is its axes' and whose every cell applies to
// the lab and costs no more than b; its settings are the lab's compare
// settings, algorithms, or the lab itself. An error names the file and
// what in it is wrong.
func loadMap(file string, data []byte, given *labfile.Lab, scenario string, b assemble.Budget) (*pageMap, error) {
	bad := func(format string, a ...any) (*pageMap, error) {
		return nil, fmt.Errorf("%s: "+format, append([]any{file}, a...)...)
	}
	var sw report.Sweep
	if err := state.DecodeStrict(data, &sw); err != nil {
		return bad("not a sweep report of lab sweep --json: %v", err)
	}
	switch {
	case sw.Lab == "" || len(sw.Axes) == 0:
		return bad("not a sweep report of lab sweep --json (no lab or no axes in it)")
	case sw.Lab != given.Name:
		return bad("a map of lab %s, not of %s (the lab watched): watch %s, or sweep this lab", sw.Lab, given.Name, sw.Lab)
	case len(sw.Axes) != 2:
		return bad("a sweep over %d axis; a map needs two (lab sweep with two --vary)", len(sw.Axes))
	case len(sw.Maps) == 0:
		return bad("has no maps (maps[]): a map needs a script event that ends (docs/sweeps.md#metastability-map)")
	case len(sw.Seeds) == 0:
		return bad("names no seeds")
	case !(sw.DurationS > 0 && sw.DurationS <= math.MaxInt64/1e9):
		return bad("duration_s: must be more than 0, got %g", sw.DurationS)
	}
	xs, ys := sw.Axes[0].Values, sw.Axes[1].Values
	base := given.Clone()
	base.Compare = nil // as lab sweep: a varied knob is not checked against the compare list
	base.Duration = time.Duration(math.Round(sw.DurationS*1e3)) * time.Millisecond
	if err := base.Validate(); err != nil {
		return bad("duration_s: %v", err)
	}
	m := &pageMap{file: file, given: given, base: base, scenario: scenario}
	for i, mp := range sw.Maps {
		if len(mp.Cells) != len(xs)*len(ys) {
			return bad("maps[%d] (%s): %d cells, but its axes make a grid of %d x %d", i, mp.Setting, len(mp.Cells), len(xs), len(ys))
		}
		for k, c := range mp.Cells {
			if c.X != xs[k%len(xs)] || c.Y != ys[k/len(xs)] {
				return bad("maps[%d].cells[%d]: at %s=%s %s=%s, but the grid has %s=%s %s=%s there", i, k,
					sw.Axes[0].Path, c.X, sw.Axes[1].Path, c.Y, sw.Axes[0].Path, xs[k%len(xs)], sw.Axes[1].Path, ys[k/len(xs)])
			}
		}
		s, err := mapSetting(given, mp.Setting)
		if err != nil {
			return bad("maps[%d]: %v", i, err)
		}
		m.settings = append(m.settings, s)
	}
	for _, y := range ys {
		for _, x := range xs {
			l, err := m.cellLab(x, y, sw.Seeds[0], sw.Axes)
			if err != nil {
				return bad("%v", err)
			}
			if err := CheckCost(l, b); err != nil {
				return bad("at %s=%s %s=%s: %v", sw.Axes[0].Path, x, sw.Axes[1].Path, y, err)
			}
		}
	}
	sw.Points, sw.Knees, sw.Boundaries, sw.Hysteresis = nil, nil, nil, nil
	m.sweep = &sw
	return m, nil
}

// mapSetting is the setting a map of name was swept under: a compare
// setting of l, an algorithm, or l itself (lab sweep names the lab's own
// line after the lab or its algorithm).
func mapSetting(l *labfile.Lab, name string) (labfile.Setting, error) {
	if name == l.Name {
		return labfile.Setting{}, nil
	}
	s, err := SettingNamed(l, name)
	if err != nil {
		return s, fmt.Errorf("setting %w", err)
	}
	return s, nil
}

// cellLab is the lab of the grid point x, y on seed: the map's base with
// both axes applied as lab sweep applies them, its seed, and the compare
// list of the lab as given back (Compare all on the page runs it).
func (m *pageMap) cellLab(x, y string, seed uint64, axes []report.SweepAxis) (*labfile.Lab, error) {
	l := m.base
	for i, v := range []string{x, y} {
		var err error
		if l, err = l.WithAxis(axes[i].Path, v); err != nil {
			return nil, fmt.Errorf("axes[%d]: at %s=%s: %w", i, axes[i].Path, v, err)
		}
	}
	l.Seed = seed
	l.Compare = slices.Clone(m.given.Compare)
	return l, nil
}

// mapStateLocked is the snapshot's map (nil without one). Caller holds mu.
func (s *Server) mapStateLocked() *mapState {
	if s.pmap == nil {
		return nil
	}
	return &mapState{Loaded: s.pmap.loaded, Playing: s.cell}
}

// mapJSON is GET /api/map's answer.
func (s *Server) mapJSON() map[string]any {
	m := s.pmap
	return map[string]any{"file": m.file, "lab": m.sweep.Lab, "mode": m.sweep.Mode, "seeds": m.sweep.Seeds,
		"duration_s": m.sweep.DurationS, "axes": m.sweep.Axes, "maps": m.sweep.Maps, "loaded": m.loaded, "playing": s.cell}
}

// noMap is the refusal of a map request with no map loaded.
func noMap() dash.Answer {
	return dash.Refuse(404, "no map loaded: lab watch LAB --map FILE.json, or POST /api/map with the JSON of lab sweep LAB --vary ... --vary ... --json")
}

// handleGetMap is GET /api/map: the map loaded, its cells per setting, and
// the cell playing (null when the lab playing is none of its cells).
func (s *Server) handleGetMap(dash.Request) dash.Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pmap == nil {
		return noMap()
	}
	return dash.JSON(200, s.mapJSON())
}

// mapIn is POST /api/map: the JSON of lab sweep --json as text, and the
// name its errors give (default map.json).
type mapIn struct {
	File string `json:"file"`
	JSON string `json:"json"`
}

// handleMap is POST /api/map: load a map of the lab playing (of the lab a
// map's cell is playing from, when one is); the lab plays on. The answer
// is GET /api/map's.
func (s *Server) handleMap(req dash.Request) dash.Answer {
	var in mapIn
	if refusal, ok := dash.Decode(req, &in); !ok {
		return refusal
	}
	if in.File == "" {
		in.File = "map.json"
	}
	if msg := labfile.CheckPrintable(in.File, false); msg != "" {
		return dash.Refuse(400, "file: "+msg)
	}
	s.mu.Lock()
	given, scenario, b := s.source.lab, s.scenario, s.budget
	if s.cell != nil { // a cell playing: the lab it came from
		given, scenario = s.pmap.given, s.pmap.scenario
	}
	s.mu.Unlock()
	m, err := loadMap(in.File, []byte(in.JSON), given, scenario, b)
	if err != nil {
		return dash.Refuse(400, err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setMap(m)
	s.cell = nil
	s.dirty = true
	return dash.JSON(200, s.mapJSON())
}

// setMap makes m the map shown. Caller holds mu (or is New).
func (s *Server) setMap(m *pageMap) {
	s.maps++
	m.loaded = s.maps
	s.pmap = m
}

// handleMapCell is POST /api/map/cell {"setting", "x", "y", "seed"}: play
// that cell of the map from 0 (seed: one of the sweep's, default its
// first; setting: default the first map's), playing even if playback was
// paused; the answer carries the cell and the playback.
func (s *Server) handleMapCell(req dash.Request) dash.Answer {
	var in struct {
		Setting string  `json:"setting"`
		X       string  `json:"x"`
		Y       string  `json:"y"`
		Seed    *uint64 `json:"seed"`
	}
	if refusal, ok := dash.Decode(req, &in); !ok {
		return refusal
	}
	s.mu.Lock()
	m := s.pmap
	s.mu.Unlock()
	if m == nil {
		return noMap()
	}
	sw := m.sweep
	k := 0
	if in.Setting != "" {
		k = slices.IndexFunc(sw.Maps, func(mp report.Map) bool { return mp.Setting == in.Setting })
		if k < 0 {
			return dash.Refuse(400, fmt.Sprintf("setting: %q has no map in %s (%s)", in.Setting, m.file, strings.Join(mapNames(sw.Maps), ", ")))
		}
	}
	for i, v := range []string{in.X, in.Y} {
		if a := sw.Axes[i]; !slices.Contains(a.Values, v) {
			return dash.Refuse(400, fmt.Sprintf("%s: %q is not a value of the map's axis %s (%s)", []string{"x", "y"}[i], v, a.Path, strings.Join(a.Values, ", ")))
		}
	}
	seed := sw.Seeds[0]
	if in.Seed != nil {
		if !slices.Contains(sw.Seeds, *in.Seed) {
			return dash.Refuse(400, fmt.Sprintf("seed: %d is not one of the map's seeds (%s)", *in.Seed, seedList(sw.Seeds)))
		}
		seed = *in.Seed
	}
	l, err := m.cellLab(in.X, in.Y, seed, sw.Axes)
	if err != nil {
		return dash.Refuse(400, err.Error())
	}
	stop := s.stopper(req)
	p, err := prepare(l, m.settings[k], s.budget)
	if err != nil {
		return dash.Refuse(400, err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if stop() {
		return dash.RefuseErr(stopped(sim.ErrStopped))
	}
	s.install(p, m.scenario)
	text, err := labyaml.Marshal(l)
	if err != nil {
		return dash.Refuse(500, err.Error())
	}
	s.source = &source{file: l.Name + "-map-cell.yaml", text: text, lab: l}
	s.cell = &MapCell{Setting: sw.Maps[k].Setting, X: in.X, Y: in.Y, Seed: seed}
	s.pauseAt, s.paused = clock.Never, false
	s.publishLocked()
	return dash.JSON(200, map[string]any{"ok": true, "cell": s.cell, "playback": s.playbackLocked()})
}

func mapNames(maps []report.Map) []string {
	var out []string
	for _, m := range maps {
		out = append(out, m.Setting)
	}
	return out
}

func seedList(seeds []uint64) string {
	var parts []string
	for _, v := range seeds {
		parts = append(parts, fmt.Sprint(v))
	}
	return strings.Join(parts, ", ")
}
