package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/assemble"
	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/output"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/internal/stats/confidence"
)

// Bounds on a sweep's size, checked before anything runs.
const (
	maxAxisValues = 1000 // values of one --vary
	maxSweepRuns  = 1000000
)

type sweepFlags struct {
	vary      []string
	seeds     string
	seed      uint64
	duration  time.Duration
	compare   string
	json      bool
	csv       string
	plot      string
	knee      string
	live      bool
	maxPoints int
	dashboard string
	shard     string  // --shard I/N (shard.go)
	part      string  // --part FILE: where a shard writes its part
	maxCost   float64 // --max-cost (cost.go): checked at every point
}

func sweepCommand() *cobra.Command {
	var f sweepFlags
	var lf liveFlags
	cmd := &cobra.Command{
		Use:   "sweep FILE|SCENARIO --vary PATH=FROM:TO:STEP [--vary PATH=V1,V2,...]",
		Short: "Run a lab over a grid of settings: p99 against load, one curve per algorithm, knees marked",
		Long: `sweep runs a lab at every point of a grid of one or two varied settings, each
point under every compare setting (--compare, or the lab's compare list) and on
every seed (--seeds), in parallel on all cores, and prints one row per point.

--vary PATH=FROM:TO:STEP is a range (numbers, or durations like 50ms:250ms:50ms);
--vary PATH=V1,V2,... a list. PATH is any path a compare setting's set: accepts
(docs/labfile.md), or "algorithm" (balancers.algorithm, or clients.algorithm when
the lab balances client-side). When an axis varies the algorithm, the lab's own
compare list is not used. The first axis is the x of the curves; each setting and
value of the second axis is a line. A line's knee is the highest x whose mean p99
stays under --knee: a duration, or a factor of the line's p99 at its lowest x.

--live runs the points one after another with real processes, as lab run does,
and refuses more than --max-points runs (points x settings x seeds).`,
		Example: `  lab sweep slow-server --vary clients.rate=50:300:25 --compare round-robin,least-outstanding,p2c --plot knee.svg
  lab sweep slow-server --vary clients.rate=50:300:50 --compare round-robin,p2c --seeds 10 --csv sweep.csv
  lab sweep rr-slow --vary clients.rate=100:500:100 --vary algorithm=round-robin,p2c --json
  lab sweep rr-slow --vary clients.rate=200,400 --compare round-robin,p2c --duration 10s --live`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd, args[0], f, lf)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.vary, "vary", nil, "a setting to vary: PATH=FROM:TO:STEP or PATH=V1,V2,... (once or twice)")
	fl.StringVar(&f.seeds, "seeds", "", "run every point on each seed (N = 1..N, A-B, or 7,9,11): means with 95% intervals")
	fl.Uint64Var(&f.seed, "seed", 0, "random seed (default: the lab file's seed)")
	fl.DurationVar(&f.duration, "duration", 0, "override the lab's duration (e.g. 10s)")
	fl.StringVar(&f.compare, "compare", "", "comma-separated settings or algorithms: one line each")
	fl.BoolVar(&f.json, "json", false, "print the JSON sweep report (docs/report.md) instead of the table")
	fl.StringVar(&f.csv, "csv", "", "also write one row per point and setting to FILE.csv")
	fl.StringVar(&f.plot, "plot", "", "also draw p99 against the first axis into FILE.svg or FILE.png")
	fl.StringVar(&f.knee, "knee", "10x", "the p99 bound of a knee: a duration (200ms) or a factor of the lowest point's p99 (10x)")
	fl.BoolVar(&f.live, "live", false, "run the points live with real processes, one after another")
	costFlag(cmd, &f.maxCost)
	fl.IntVar(&f.maxPoints, "max-points", 12, "live: refuse more runs than this (points x settings x seeds)")
	fl.StringVar(&f.dashboard, "dashboard", "", `live: serve the dashboard on ADDR while each point runs ("" = none)`)
	fl.StringVar(&f.shard, "shard", "", "run only slice I of N of the sweep's runs (I/N, I from 0; a Kubernetes Indexed Job's completion index)\nand write its part for lab sweep merge (docs/sweeps.md)")
	fl.StringVar(&f.part, "part", "", `with --shard: write the part to FILE ("" or "-": stdout)`)
	lf.add(cmd)
	cmd.AddCommand(sweepMergeCommand())
	return cmd
}

// sweepPlan is a checked sweep: every lab it will run, built and validated.
type sweepPlan struct {
	arg      string       // the lab file or scenario as given
	lab      *labfile.Lab // the lab as loaded (with --duration)
	axes     []axis
	settings []labfile.Setting
	seeds    []uint64
	grid     [][]string     // each point's axis values: the first axis varies fastest
	labs     []*labfile.Lab // grid point g on seed k at g*len(seeds)+k
	names    []string       // each lab's point and seed, for progress lines
	lines    []string       // each (point, setting)'s line, at g*len(settings)+j
	knee     report.KneeRule
	sim      bool            // the points run in the simulator (not --live)
	budget   assemble.Budget // --max-cost
}

// planSweep checks every flag and builds every lab, so that bad input is
// refused (exit 2) before anything runs.
func planSweep(arg string, f sweepFlags, changed func(flag string) bool) (*sweepPlan, error) {
	if len(f.vary) == 0 || len(f.vary) > 2 {
		return nil, usageError{fmt.Errorf("--vary: give one or two axes (got %d), like --vary clients.rate=100:1000:100", len(f.vary))}
	}
	p := &sweepPlan{arg: arg, sim: !f.live}
	var err error
	if p.budget, err = budget(f.maxCost); err != nil {
		return nil, err
	}
	for _, spec := range f.vary {
		a, err := parseVary(spec)
		if err != nil {
			return nil, err
		}
		if len(p.axes) == 1 && (p.axes[0].path == a.path || setsAlgorithm(p.axes[0].path) && setsAlgorithm(a.path)) {
			return nil, usageError{fmt.Errorf("--vary %s: the first axis (%s) sets the same knob", a.path, p.axes[0].path)}
		}
		p.axes = append(p.axes, a)
	}
	if p.knee, err = parseKnee(f.knee); err != nil {
		return nil, err
	}
	if f.plot != "" && p.axes[0].unit == "text" {
		return nil, usageError{fmt.Errorf("--plot: the first --vary axis (%s) is not numeric, so it cannot be the x of a curve; put the numeric axis first", p.axes[0].path)}
	}
	// the lab with --seed and --duration, as lab sim takes them (the settings are chosen below)
	if p.lab, _, err = prepare(arg, simFlags{seed: f.seed, duration: f.duration, plot: f.plot}, changed); err != nil {
		return nil, err
	}
	p.seeds = []uint64{p.lab.Seed}
	if f.seeds != "" {
		if p.seeds, err = seedsOf(simFlags{seeds: f.seeds}, changed("seed")); err != nil {
			return nil, err
		}
	}
	if err := p.chooseSettings(f.compare); err != nil {
		return nil, err
	}
	if err := p.build(); err != nil {
		return nil, err
	}
	return p, nil
}

// chooseSettings picks the lines' settings: --compare, else the lab's
// compare list unless an axis varies the algorithm (then the lab as it is),
// and refuses a setting that would override an axis.
func (p *sweepPlan) chooseSettings(compare string) error {
	algoAxis := slices.ContainsFunc(p.axes, func(a axis) bool { return setsAlgorithm(a.path) })
	if compare == "" && algoAxis {
		p.settings = []labfile.Setting{{Name: p.lab.Name}}
	} else {
		s, err := chooseSettings(p.lab, compare)
		if err != nil {
			return usageError{err}
		}
		p.settings = s
	}
	for _, s := range p.settings {
		for _, a := range p.axes {
			_, sets := s.Set[a.path]
			if sets || setsAlgorithm(a.path) && (s.Algorithm != "" || s.Set["balancers.algorithm"] != "" || s.Set["clients.algorithm"] != "") {
				return usageError{fmt.Errorf("--vary %s: the setting %q sets it too; vary it or compare it, not both (choose settings with --compare)", a.path, s.Name)}
			}
		}
	}
	p.lab.Compare = nil // the settings are chosen; a varied knob must not be checked against the list
	return nil
}

// build applies every grid point to the lab, checks each under every
// setting, and names the lines.
func (p *sweepPlan) build() error {
	second := []string{""}
	if len(p.axes) == 2 {
		second = p.axes[1].values
	}
	for _, v2 := range second { // the first axis varies fastest: a line's points are adjacent
		for _, v1 := range p.axes[0].values {
			g := []string{v1}
			if len(p.axes) == 2 {
				g = append(g, v2)
			}
			p.grid = append(p.grid, g)
		}
	}
	if runs := len(p.grid) * len(p.settings) * len(p.seeds); runs > maxSweepRuns {
		return usageError{fmt.Errorf("lab sweep: %s is more than %d", p.size(), maxSweepRuns)}
	}
	for _, g := range p.grid {
		l := p.lab
		for i, v := range g {
			var err error
			if l, err = applyAxis(l, p.axes[i].path, v); err != nil {
				return usageError{fmt.Errorf("--vary %s: at %s=%s: %w", p.axes[i].spec, p.axes[i].path, v, locate(err, p.arg, p.axes[i].path))}
			}
		}
		for _, s := range p.settings {
			if _, err := l.WithSetting(s); err != nil {
				return usageError{fmt.Errorf("at %s: %w", pointText(p.axes, g), err)}
			}
			p.lines = append(p.lines, p.lineName(s, g))
		}
		if err := assemble.CheckCost(l, p.settings, p.sim, p.budget); err != nil {
			return usageError{fmt.Errorf("at %s: %w", pointText(p.axes, g), err)}
		}
		for _, sl := range withSeeds(l, p.seeds) {
			p.labs = append(p.labs, sl)
			p.names = append(p.names, fmt.Sprintf("%s, seed %d", pointText(p.axes, g), sl.Seed))
		}
	}
	return nil
}

// lineName names the curve a point is on: its setting (when there are
// several, or no second axis) and its second-axis value.
func (p *sweepPlan) lineName(s labfile.Setting, g []string) string {
	var parts []string
	if len(p.settings) > 1 || len(g) < 2 {
		parts = append(parts, s.Name)
	}
	if len(g) == 2 {
		if setsAlgorithm(p.axes[1].path) {
			parts = append(parts, g[1])
		} else {
			parts = append(parts, p.axes[1].path+"="+g[1])
		}
	}
	return strings.Join(parts, ", ")
}

// size says how many runs the sweep makes and why.
func (p *sweepPlan) size() string {
	return fmt.Sprintf("%d runs (%s x %s x %s)", len(p.grid)*len(p.settings)*len(p.seeds),
		plural(len(p.grid), "point"), plural(len(p.settings), "setting"), plural(len(p.seeds), "seed"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func pointText(axes []axis, g []string) string {
	parts := make([]string, len(g))
	for i, v := range g {
		parts[i] = axes[i].path + "=" + v
	}
	return strings.Join(parts, " ")
}

// report assembles the sweep from one report per lab (in plan order).
func (p *sweepPlan) report(mode string, reps []*report.Report) *report.Sweep {
	var runs []report.Run
	for _, r := range reps {
		runs = append(runs, r.Runs...)
	}
	return p.meta(mode).assemble(runs)
}

// sweepMeta is what a sweep's report is assembled from besides the runs:
// the plan's shape, without its labs. A sharded sweep's parts carry it, so
// that lab sweep merge needs neither the lab file nor the flags.
type sweepMeta struct {
	Header   report.Sweep `json:"header"` // the report without its points and knees
	X        []float64    `json:"x"`      // the first axis's values as numbers (nil when not numeric)
	Grid     [][]string   `json:"grid"`
	Lines    []string     `json:"lines"` // (point, setting) at g*Settings+j
	Settings int          `json:"settings"`
}

func (p *sweepPlan) meta(mode string) sweepMeta {
	h := report.Sweep{Mode: mode, Lab: p.lab.Name, DurationS: p.lab.Duration.Seconds(), Seeds: p.seeds,
		Method: confidence.Method, Confidence: confidence.Level, Knee: p.knee}
	for _, a := range p.axes {
		h.Axes = append(h.Axes, report.SweepAxis{Path: a.path, Values: a.values, Unit: a.unit})
	}
	return sweepMeta{Header: h, X: p.axes[0].nums, Grid: p.grid, Lines: p.lines, Settings: len(p.settings)}
}

// assemble builds the sweep from every run in plan order: run k is lab
// k/Settings (point g on seed i at g*seeds+i) under setting k%Settings.
func (m sweepMeta) assemble(runs []report.Run) *report.Sweep {
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
	return &s
}

func runSweep(cmd *cobra.Command, arg string, f sweepFlags, lf liveFlags) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	p, err := planSweep(arg, f, cmd.Flags().Changed)
	if err != nil {
		return err
	}
	b := batch{what: "lab sweep " + p.lab.Name, labs: p.labs, settings: p.settings, names: p.names}
	if f.shard != "" {
		return runShard(p, b, f, out, errOut)
	}
	var reps []*report.Report
	mode := "sim"
	if f.live {
		mode = "live"
		if reps, err = p.runLive(b, f, lf, errOut); err != nil {
			return err
		}
		for i, rep := range reps { // as simulateRuns gives simulated runs theirs
			rep.AddRecovery(b.labs[i])
		}
	} else {
		fmt.Fprintf(errOut, "lab sweep %s: %s\n", p.lab.Name, p.size())
		verdicts := report.HasTransients(p.lab) // the series, for the recovery verdicts
		if reps, err = b.simulate(func(int) sim.Options { return sim.Options{Series: verdicts} }, errOut); err != nil {
			return err
		}
	}
	for _, rep := range reps { // the series the verdicts needed go
		*rep = *rep.WithoutSeries()
	}
	return writeSweep(p.report(mode, reps), f, out, errOut)
}

// writeSweep writes a sweep's CSV and plot if asked, and prints its table
// or JSON (lab sweep, and lab sweep merge alike).
func writeSweep(s *report.Sweep, f sweepFlags, out, errOut io.Writer) error {
	if f.csv != "" {
		if err := writeFile(f.csv, s.WriteCSV); err != nil {
			return err
		}
		fmt.Fprintf(errOut, "CSV written to %s\n", f.csv)
	}
	if f.plot != "" {
		if err := output.SweepPlot(s, f.plot); err != nil {
			return err
		}
		fmt.Fprintf(errOut, "plot written to %s\n", f.plot)
	}
	if f.json {
		return s.WriteJSON(out)
	}
	return s.WriteTable(out)
}

// runLive checks the live limits and runs the sweep's labs one after another.
func (p *sweepPlan) runLive(b batch, f sweepFlags, lf liveFlags, errOut io.Writer) ([]*report.Report, error) {
	if err := lf.check("--dashboard", f.dashboard); err != nil {
		return nil, err
	}
	if f.maxPoints < 1 {
		return nil, usageError{fmt.Errorf("--max-points: must be at least 1, got %d", f.maxPoints)}
	}
	estimate := time.Duration(len(b.labs)) * liveEstimate(p.lab, len(p.settings))
	if b.runs() > f.maxPoints {
		return nil, usageError{fmt.Errorf("lab sweep --live: %s would take about %v; the limit is %d runs "+
			"(--max-points %d runs them all; --duration, fewer values, --compare, or lab sweep without --live cut them)",
			p.size(), estimate.Round(time.Second), f.maxPoints, b.runs())}
	}
	for _, l := range b.labs {
		if err := livelab.CheckRun(l, p.settings, lf.maxServers); err != nil {
			return nil, usageError{simHint(err, p.arg)}
		}
	}
	opts, closeLogs, err := lf.options(errOut)
	if err != nil {
		return nil, err
	}
	defer closeLogs()
	fmt.Fprintf(errOut, "lab sweep %s --live: %d runs, about %v\n", p.lab.Name, b.runs(), estimate.Round(time.Second))
	ctx, stop := interruptible()
	defer stop()
	return b.live(ctx, livelab.RunOptions{Options: opts, Progress: errOut, Dashboard: f.dashboard,
		Series: report.HasTransients(p.lab)}, errOut) // for the recovery verdicts
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}
