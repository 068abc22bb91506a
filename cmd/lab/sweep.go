package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/plan"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/output"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/sim"
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
		Use:   "sweep FILE|SCENARIO --vary PATH=FROM:TO:STEP [--vary PATH=V1,V2,...] [--vary ...]",
		Short: "Run a lab over a grid of settings: p99 against load, one curve per algorithm, knees marked",
		Long: `sweep runs a lab at every point of a grid of one to three varied settings, each
point under every compare setting (--compare, or the lab's compare list) and on
every seed (--seeds), in parallel on all cores, and prints one row per point.

--vary PATH=FROM:TO:STEP is a range (numbers, or durations like 50ms:250ms:50ms);
--vary PATH=V1,V2,... a list. PATH is any path a compare setting's set: accepts
(docs/labfile.md), a field of one script event (events[0].speed, events[0].for,
events[0].at: the trigger), or "algorithm" (balancers.algorithm, or
clients.algorithm when the lab balances client-side). When an axis varies the
algorithm, the lab's own compare list is not used. The first axis is the x of the
curves; each setting and value of the later axes is a line. A line's knee is the
highest x whose mean p99 stays under --knee: a duration, or a factor of the line's
p99 at its lowest x. When the script has an event that ends, each point says on
how many seeds the fleet recovered from it; with two axes that is a map per
setting, its boundary drawn (docs/sweeps.md, "Metastability map"); a third
axis slices it: a map per setting and value of the third.

--live runs the points one after another with real processes, as lab run does,
and refuses more than --max-points runs (points x settings x seeds).`,
		Example: `  lab sweep slow-server --vary clients.rate=50:300:25 --compare round-robin,least-outstanding,p2c --plot knee.svg
  lab sweep slow-server --vary clients.rate=50:300:50 --compare round-robin,p2c --seeds 10 --csv sweep.csv
  lab sweep rr-slow --vary clients.rate=100:500:100 --vary algorithm=round-robin,p2c --json
  lab sweep rr-slow --vary clients.rate=200,400 --compare round-robin,p2c --duration 10s --live
  lab sweep retry-storm --vary events[0].speed=0.3:0.8:0.1 --vary events[0].for=500ms,1s,2s,4s --seeds 10 --plot map.svg`,
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
	fl.StringVar(&f.plot, "plot", "", "also draw p99 against the first axis (or, with two or three axes and recovery verdicts, the metastability maps) into FILE.svg or FILE.png")
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

// planSweep checks every flag and builds every lab, so that bad input is
// refused (exit 2) before anything runs.
func planSweep(arg string, f sweepFlags, changed func(flag string) bool) (*plan.Sweep, error) {
	p := &plan.Sweep{Sim: !f.live, Locate: func(err error, path string) error { return locate(err, arg, path) }}
	var err error
	if p.Budget, err = budget(f.maxCost); err != nil {
		return nil, err
	}
	for _, spec := range f.vary {
		a, err := plan.ParseVary(spec)
		if err != nil {
			return nil, usageError{err}
		}
		p.Axes = append(p.Axes, a)
	}
	if err := plan.CheckAxes(p.Axes); err != nil {
		return nil, usageError{err}
	}
	if p.Knee, err = plan.ParseKnee(f.knee); err != nil {
		return nil, usageError{err}
	}
	if f.plot != "" && p.Axes[0].Unit == "text" {
		return nil, usageError{fmt.Errorf("--plot: the first --vary axis (%s) is not numeric, so it cannot be the x of a curve; put the numeric axis first", p.Axes[0].Path)}
	}
	// the lab with --seed and --duration, as lab sim takes them (the settings are chosen below)
	if p.Lab, _, err = prepare(arg, simFlags{seed: f.seed, duration: f.duration, plot: f.plot}, changed); err != nil {
		return nil, err
	}
	p.Seeds = []uint64{p.Lab.Seed}
	if f.seeds != "" {
		if p.Seeds, err = seedsOf(simFlags{seeds: f.seeds}, changed("seed")); err != nil {
			return nil, err
		}
	}
	// the lines' settings: --compare, else the lab's compare list unless an
	// axis varies the algorithm (then the lab as it is)
	if f.compare == "" && plan.VariesAlgorithm(p.Axes) {
		p.Settings = []labfile.Setting{{Name: p.Lab.Name}}
	} else if p.Settings, err = chooseSettings(p.Lab, f.compare); err != nil {
		return nil, usageError{err}
	}
	if err := p.Build(); err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

func runSweep(cmd *cobra.Command, arg string, f sweepFlags, lf liveFlags) error {
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	p, err := planSweep(arg, f, cmd.Flags().Changed)
	if err != nil {
		return err
	}
	b := p.Batch("lab sweep " + p.Lab.Name)
	if f.shard != "" {
		return runShard(p, b, f, out, errOut)
	}
	var reps []*report.Report
	mode := "sim"
	if f.live {
		mode = "live"
		if reps, err = runSweepLive(arg, p, b, f, lf, errOut); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(errOut, "lab sweep %s: %s\n", p.Lab.Name, p.Size())
		verdicts := verdict.HasTransients(p.Lab) // the series, for the recovery verdicts
		if reps, err = simRunner(sim.Options{Series: verdicts}).Run(context.Background(), b, errOut); err != nil {
			return err
		}
	}
	for _, rep := range reps { // the series the verdicts needed go
		*rep = *rep.WithoutSeries()
	}
	return writeSweep(p.Report(mode, reps), f, out, errOut)
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

// runSweepLive checks the live limits and runs the sweep's labs one after another.
func runSweepLive(arg string, p *plan.Sweep, b plan.Batch, f sweepFlags, lf liveFlags, errOut io.Writer) ([]*report.Report, error) {
	if err := lf.check("--dashboard", f.dashboard); err != nil {
		return nil, err
	}
	if f.maxPoints < 1 {
		return nil, usageError{fmt.Errorf("--max-points: must be at least 1, got %d", f.maxPoints)}
	}
	estimate := time.Duration(len(b.Labs)) * plan.LiveEstimate(p.Lab, len(p.Settings))
	if b.Runs() > f.maxPoints {
		return nil, usageError{fmt.Errorf("lab sweep --live: %s would take about %v; the limit is %d runs "+
			"(--max-points %d runs them all; --duration, fewer values, --compare, or lab sweep without --live cut them)",
			p.Size(), estimate.Round(time.Second), f.maxPoints, b.Runs())}
	}
	for _, l := range b.Labs {
		if err := livelab.CheckRun(l, p.Settings, lf.maxProcesses); err != nil {
			return nil, usageError{simHint(err, arg)}
		}
	}
	opts, closeLogs, err := lf.options(errOut)
	if err != nil {
		return nil, err
	}
	defer closeLogs()
	fmt.Fprintf(errOut, "lab sweep %s --live: %d runs, about %v\n", p.Lab.Name, b.Runs(), estimate.Round(time.Second))
	ctx, stop := interruptible()
	defer stop()
	return plan.Live{Options: livelab.RunOptions{Options: opts, Progress: errOut, Dashboard: f.dashboard,
		Series: verdict.HasTransients(p.Lab)}}.Run(ctx, b, errOut) // the series for the recovery verdicts
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
