package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/stats/confidence"
)

// MaxSweepRuns bounds a sweep's runs (points x settings x seeds), checked
// before anything runs.
const MaxSweepRuns = 1000000

// Sweep is a checked sweep: every lab it will run, built and validated.
// Fill the fields above the line and call Build.
type Sweep struct {
	Lab      *labfile.Lab // the lab as loaded (with --duration); its compare list is dropped by Build
	Axes     []Axis       // one or two
	Settings []labfile.Setting
	Seeds    []uint64
	Knee     report.KneeRule
	Sim      bool            // the points run in the simulator (not live)
	Budget   assemble.Budget // the cost bound each point is checked against
	// Locate places an error of an axis's path in the lab file (file:line:col); nil leaves it.
	Locate func(err error, path string) error

	Grid  [][]string     // each point's axis values: the first axis varies fastest
	Labs  []*labfile.Lab // grid point g on seed k at g*len(Seeds)+k
	Names []string       // each lab's point and seed, for progress lines
	Lines []string       // each (point, setting)'s line, at g*len(Settings)+j
	// Tipped is each (point, setting)'s rate when its trigger began, as
	// Lines; RecoveryRate says the first axis lowers the rate after it
	// (report.Hysteresis).
	Tipped       []float64
	RecoveryRate bool
}

// MaxAxes is how many --vary axes a sweep takes: the first two draw a
// curve per value of the second (or a metastability map), a third slices
// them (a map per load, say).
const MaxAxes = 3

// CheckAxes refuses too many axes, and an axis on the knob of an earlier one.
func CheckAxes(axes []Axis) error {
	if len(axes) == 0 || len(axes) > MaxAxes {
		return fmt.Errorf("--vary: give one to %d axes (got %d), like --vary clients.rate=100:1000:100", MaxAxes, len(axes))
	}
	for j := 1; j < len(axes); j++ {
		for i := range j {
			if axes[i].Path == axes[j].Path || SetsAlgorithm(axes[i].Path) && SetsAlgorithm(axes[j].Path) {
				return fmt.Errorf("--vary %s: an earlier axis (%s) sets the same knob", axes[j].Path, axes[i].Path)
			}
		}
	}
	return nil
}

// VariesAlgorithm says whether an axis chooses the algorithm: then the
// lab's own compare list is not used.
func VariesAlgorithm(axes []Axis) bool {
	return slices.ContainsFunc(axes, func(a Axis) bool { return SetsAlgorithm(a.Path) })
}

// Build refuses a setting that would override an axis, applies every grid
// point to the lab, checks each under every setting and against the cost
// budget, and names the lines.
func (p *Sweep) Build() error {
	if err := CheckAxes(p.Axes); err != nil {
		return err
	}
	for _, s := range p.Settings {
		for _, a := range p.Axes {
			_, sets := s.Set[a.Path]
			if sets || SetsAlgorithm(a.Path) && (s.Algorithm != "" || s.Set["balancers.algorithm"] != "" || s.Set["clients.algorithm"] != "") {
				return fmt.Errorf("--vary %s: the setting %q sets it too; vary it or compare it, not both (choose settings with --compare)", a.Path, s.Name)
			}
		}
	}
	p.Lab.Compare = nil // the settings are chosen; a varied knob must not be checked against the list
	p.Grid, p.Labs, p.Names, p.Lines, p.Tipped = grid(p.Axes), nil, nil, nil, nil
	p.RecoveryRate = true // unless a point's lab says otherwise
	if runs := len(p.Grid) * len(p.Settings) * len(p.Seeds); runs > MaxSweepRuns {
		return fmt.Errorf("lab sweep: %s is more than %d", p.Size(), MaxSweepRuns)
	}
	for _, g := range p.Grid {
		l := p.Lab
		for i, v := range g {
			var err error
			if l, err = l.WithAxis(p.Axes[i].Path, v); err != nil {
				if p.Locate != nil {
					err = p.Locate(err, p.Axes[i].Path)
				}
				return fmt.Errorf("--vary %s: at %s=%s: %w", p.Axes[i].Spec, p.Axes[i].Path, v, err)
			}
		}
		p.RecoveryRate = p.RecoveryRate && recoveryRateAxis(l, p.Axes[0].Path)
		for _, s := range p.Settings {
			ls, err := l.WithSetting(s)
			if err != nil {
				return fmt.Errorf("at %s: %w", p.pointText(g), err)
			}
			p.Lines = append(p.Lines, p.lineName(s, g))
			p.Tipped = append(p.Tipped, rateAtTrigger(ls))
		}
		if err := assemble.CheckCost(l, p.Settings, p.Sim, p.Budget); err != nil {
			return fmt.Errorf("at %s: %w", p.pointText(g), err)
		}
		for _, sl := range WithSeeds(l, p.Seeds) {
			p.Labs = append(p.Labs, sl)
			p.Names = append(p.Names, fmt.Sprintf("%s, seed %d", p.pointText(g), sl.Seed))
		}
	}
	return nil
}

// grid is every point of the axes, the first axis varying fastest (a
// line's points are adjacent), then the second, then the third.
func grid(axes []Axis) [][]string {
	out := [][]string{{}}
	for i := len(axes) - 1; i >= 0; i-- { // the last axis outermost: each earlier one varies within it
		var next [][]string
		for _, g := range out {
			for _, v := range axes[i].Values {
				next = append(next, append([]string{v}, g...))
			}
		}
		out = next
	}
	return out
}

// Batch is the sweep's runs, as a Runner takes them.
func (p *Sweep) Batch(what string) Batch {
	return Batch{What: what, Labs: p.Labs, Settings: p.Settings, Names: p.Names}
}

// lineName names the curve a point is on: its setting (when there are
// several, or no second axis) and its later axes' values.
func (p *Sweep) lineName(s labfile.Setting, g []string) string {
	var parts []string
	if len(p.Settings) > 1 || len(g) < 2 {
		parts = append(parts, s.Name)
	}
	for i := 1; i < len(g); i++ {
		if SetsAlgorithm(p.Axes[i].Path) {
			parts = append(parts, g[i])
		} else {
			parts = append(parts, p.Axes[i].Path+"="+g[i])
		}
	}
	return strings.Join(parts, ", ")
}

// Size says how many runs the sweep makes and why.
func (p *Sweep) Size() string {
	return fmt.Sprintf("%d runs (%s x %s x %s)", len(p.Grid)*len(p.Settings)*len(p.Seeds),
		Plural(len(p.Grid), "point"), Plural(len(p.Settings), "setting"), Plural(len(p.Seeds), "seed"))
}

// Plural is "1 point" or "n points".
func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func (p *Sweep) pointText(g []string) string {
	parts := make([]string, len(g))
	for i, v := range g {
		parts[i] = p.Axes[i].Path + "=" + v
	}
	return strings.Join(parts, " ")
}

// Report assembles the sweep from one report per lab (in plan order).
func (p *Sweep) Report(mode string, reps []*report.Report) *report.Sweep {
	var runs []report.Run
	for _, r := range reps {
		runs = append(runs, r.Runs...)
	}
	return p.Meta(mode).Assemble(runs)
}

// Meta is what a sweep's report is assembled from besides the runs: the
// plan's shape, without its labs. A sharded sweep's parts carry it, so that
// lab sweep merge needs neither the lab file nor the flags.
type Meta struct {
	Header   report.Sweep `json:"header"` // the report without its points and knees
	X        []float64    `json:"x"`      // the first axis's values as numbers (nil when not numeric)
	Grid     [][]string   `json:"grid"`
	Lines    []string     `json:"lines"` // (point, setting) at g*Settings+j
	Settings int          `json:"settings"`
	Tipped   []float64    `json:"tipped,omitempty"` // each (point, setting)'s rate at its trigger, as Lines
}

// Meta is the sweep's shape for a report of mode ("sim" or "live").
func (p *Sweep) Meta(mode string) Meta {
	h := report.Sweep{Mode: mode, Lab: p.Lab.Name, DurationS: p.Lab.Duration.Seconds(), Seeds: p.Seeds,
		Method: confidence.Method, Confidence: confidence.Level, Knee: p.Knee}
	for _, a := range p.Axes {
		h.Axes = append(h.Axes, report.SweepAxis{Path: a.Path, Values: a.Values, Unit: a.Unit})
	}
	h.RecoveryRate = p.RecoveryRate
	return Meta{Header: h, X: p.Axes[0].Nums, Grid: p.Grid, Lines: p.Lines, Settings: len(p.Settings), Tipped: p.Tipped}
}

// recoveryRateAxis reports whether path is the rate of a rate event that
// comes once the lab's first transient has ended: a sweep over it finds
// the load the fleet must fall to to recover (hysteresis).
func recoveryRateAxis(l *labfile.Lab, path string) bool {
	ts := verdict.Transients(l)
	if len(ts) == 0 {
		return false
	}
	for i, e := range l.Events {
		if path == fmt.Sprintf("events[%d].rate", i) {
			return e.Action == labfile.ActionRate && e.At.Seconds() >= ts[0].To
		}
	}
	return false
}

// rateAtTrigger is the clients' rate in force when l's first transient
// begins: clients.rate, or the last rate event before it (0 without a
// transient).
func rateAtTrigger(l *labfile.Lab) float64 {
	ts := verdict.Transients(l)
	if len(ts) == 0 {
		return 0
	}
	rate := l.Clients.Rate
	for _, e := range l.Events {
		if e.Action == labfile.ActionRate && e.Rate > 0 && e.At.Seconds() <= ts[0].From {
			rate = e.Rate
		}
	}
	return rate
}

// Assemble builds the sweep from every run in plan order: run k is lab
// k/Settings (point g on seed i at g*seeds+i) under setting k%Settings.
func (m Meta) Assemble(runs []report.Run) *report.Sweep {
	s := m.Header
	s.Points, s.Knees = nil, nil
	ns, nk, nx := m.Settings, len(s.Seeds), len(s.Axes[0].Values)
	for j := range ns { // line by line: setting, then second-axis value
		for g0 := 0; g0 < len(m.Grid); g0 += nx {
			for g := g0; g < g0+nx; g++ {
				rs := make([]report.Run, nk)
				for k := range nk {
					rs[k] = runs[(g*nk+k)*ns+j]
				}
				pt := report.SweepPoint{Values: m.Grid[g], Line: m.Lines[g*ns+j], Summary: report.Summarize(rs),
					Recovery: report.PointRecoveryOf(rs)}
				if m.X != nil {
					pt.X = m.X[g-g0]
				}
				s.Points = append(s.Points, pt)
			}
		}
	}
	s.FindKnees()
	s.FindBoundaries()
	s.FindMaps()
	tipped := map[string]float64{}
	for k, line := range m.Lines {
		if k < len(m.Tipped) {
			tipped[line] = m.Tipped[k]
		}
	}
	s.FindHysteresis(tipped)
	return &s
}
