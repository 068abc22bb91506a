package watch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/scenarios"
)

// source is the lab file being played as it was given (a built-in
// scenario's, the demo's, one posted to /api/lab), with its compare list:
// GET /api/report.json is lab sim's report of it, GET /api/source its text.
type source struct {
	file string
	text []byte
	seed *uint64      // as posted with the file (nil: the file's own)
	lab  *labfile.Lab // parsed, the seed applied
}

// sourceOf is the source of what New was given: the scenario's file, the
// demo's, the file's bytes as given, or else the lab's own text (a lab
// file lab sim reads the same, without the comments).
func sourceOf(opts Options) (*source, error) {
	switch {
	case opts.Scenario != "":
		return scenarioSource(opts.Scenario)
	case opts.Demo:
		l, err := DemoLab()
		return &source{file: demoPath, text: demoFile, lab: l}, err
	case opts.Source != nil:
		return &source{file: opts.File, text: opts.Source, lab: opts.Lab.Clone()}, nil
	}
	text, err := labyaml.Marshal(opts.Lab)
	if err != nil {
		return nil, err
	}
	return &source{file: opts.Lab.Name + ".yaml", text: text, lab: opts.Lab.Clone()}, nil
}

// scenarioSource is built-in scenario name's file.
func scenarioSource(name string) (*source, error) {
	data, err := scenarios.Get(name)
	if err != nil {
		return nil, err
	}
	file := scenarios.File(name)
	l, err := labyaml.Parse(file, data)
	if err != nil {
		return nil, err
	}
	return &source{file: file, text: data, lab: l}, nil
}

// SimReport is `lab sim LAB --json` of l (the seed in l): every compare
// setting of it, or its own algorithm, with the recovery verdicts and
// without the series. The page's "JSON report" is these bytes.
func SimReport(l *labfile.Lab) ([]byte, error) { return simReport(l, sim.Options{}) }

// simReport is SimReport with opts: its progress, its guards and its stop.
func simReport(l *labfile.Lab, opts sim.Options) ([]byte, error) {
	rep, err := sim.Report(l, sim.DefaultSettings(l), opts)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := rep.WithoutSeries().WriteJSON(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// labIn is POST /api/lab: a lab file's text, the name its errors give
// (default lab.yaml) and, optionally, the seed to run it with (seedOf) and
// the factor its cost budget is raised by (as lab sim --max-cost; default
// lab watch's own).
type labIn struct {
	File    string          `json:"file"`
	YAML    string          `json:"yaml"`
	Seed    json.RawMessage `json:"seed"`
	MaxCost *float64        `json:"max_cost"`
}

// raiseCost is how a lab refused in the page raises its budget, as the
// refusal tells it (assemble.Budget.Raise).
const raiseCost = "the cost budget N under Your lab (max_cost in POST /api/lab)"

// PageBudget is the page's budget (cmd/labwasm's Options.Budget): the
// default, raised through Your lab's field, as its refusals say.
func PageBudget() assemble.Budget {
	b := assemble.DefaultBudget
	b.Raise = raiseCost
	return b
}

// seedOf reads POST /api/lab's seed, a whole number from 0 to 2^64-1 (a
// lab file's seed: field), digit for digit (the page sends what was typed,
// beyond what a JavaScript number holds); nil when none was given. Its
// refusal names the seed and what came, not the decoder's types.
func seedOf(raw json.RawMessage) (*uint64, error) {
	text := string(bytes.TrimSpace(raw))
	if text == "" || text == "null" {
		return nil, nil
	}
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("seed: must be a whole number from 0 to %d, got %s", uint64(math.MaxUint64), text)
	}
	return &v, nil
}

// LabStarted is POST /api/lab's answer: the lab playing now from 0, the
// compare setting it plays and its seed.
type LabStarted struct {
	Lab      string         `json:"lab"`
	OK       bool           `json:"ok"`
	Playback *dash.Playback `json:"playback"`
	Seed     uint64         `json:"seed"`
	Setting  string         `json:"setting"`
}

// runLab is POST /api/lab: play that lab file from 0 instead, its first
// compare setting if it has any (as lab watch FILE does), playing even if
// playback was paused (the page's "run"); the answer carries the playback. A file that does
// not parse is a 400 whose error names file:line:col as lab sim's does.
func (s *Server) runLab(req dash.Request, in labIn) (LabStarted, error) {
	if in.File == "" {
		in.File = "lab.yaml"
	}
	if msg := labfile.CheckPrintable(in.File, false); msg != "" { // it names the lab's errors, and GET /api/source gives it back
		return LabStarted{}, fmt.Errorf("file: %s", msg)
	}
	seed, err := seedOf(in.Seed)
	if err != nil {
		return LabStarted{}, err
	}
	l, err := labyaml.ParseFile(in.File, []byte(in.YAML)) // as lab sim reads that file: named after it when it has no name
	if err != nil {
		return LabStarted{}, err
	}
	if seed != nil {
		l.Seed = *seed
	}
	b := s.budget // the server's own is read without mu: New sets it, nothing changes it
	if in.MaxCost != nil {
		if b, err = assemble.Times(*in.MaxCost); err != nil {
			return LabStarted{}, fmt.Errorf("max_cost: %w", err)
		}
	}
	b.Raise = raiseCost
	setting := FirstSetting(l)
	if setting.Name != "" {
		if _, err := l.WithSetting(setting); err != nil {
			return LabStarted{}, fmt.Errorf("%s: compare setting %s: %v", in.File, setting.Name, err)
		}
	}
	// Built without the lock (a large ring takes a while), then played
	// unless a newer long request came meanwhile or the client went away.
	stop := s.stopper(req)
	p, err := prepare(l, setting, b)
	if err != nil {
		return LabStarted{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if stop() {
		return LabStarted{}, stopped(sim.ErrStopped)
	}
	s.install(p, "")
	s.source = &source{file: in.File, text: []byte(in.YAML), seed: seed, lab: l}
	s.pauseAt, s.paused = clock.Never, false
	s.publishLocked()
	pb := s.playbackLocked()
	return LabStarted{OK: true, Lab: l.Name, Setting: setting.Name, Seed: l.Seed, Playback: &pb}, nil
}

// Source is GET /api/source's answer: the lab file being played as given.
type Source struct {
	File string `json:"file"`
	Seed uint64 `json:"seed"` // the one it runs with
	YAML string `json:"yaml"`
}

// getSource is GET /api/source.
func (s *Server) getSource(dash.Request) (Source, error) {
	s.mu.Lock()
	src := s.source
	s.mu.Unlock()
	return Source{File: src.file, YAML: string(src.text), Seed: src.lab.Seed}, nil
}

// report is GET /api/report.json: lab sim --json of the lab file
// being played as given (with --seed when one was posted with it), every
// compare setting of it; drills taken on the page are not in it (they are
// in GET /api/lab.yaml's script).
func (s *Server) report(req dash.Request) dash.Answer {
	stop := s.stopper(req)
	s.mu.Lock()
	src, allowed := s.source, s.allowed
	s.mu.Unlock()
	progress, end := s.working("JSON report")
	defer end()
	data, err := simReport(src.lab.Clone(), sim.Options{Progress: progress, Stop: stop}.Within(allowed))
	if err != nil {
		return dash.RefuseErr(stopped(err))
	}
	return dash.Answer{Status: 200, Type: "application/json", Body: data,
		Disposition: fmt.Sprintf("attachment; filename=%q", fmt.Sprintf("%s-seed%d.json", src.lab.Name, src.lab.Seed))}
}
