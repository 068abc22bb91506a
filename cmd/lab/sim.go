package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/output"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/internal/suggest"
)

type simFlags struct {
	seed     uint64
	duration time.Duration
	compare  string
	json     bool
	series   bool
	check    bool
	claims   bool // lab sim --claims: check the narration (claims.go)
	plot     string
	seeds    string      // --seeds: many seeds with intervals (seeds.go)
	tr       *traceFlags // --record, --replay, --out, --hdr-log (traces.go)
	// maxPending is the simulator's memory guard (sim.Options.MaxPending).
	maxPending int
	maxCost    float64 // --max-cost (cost.go)
}

func simCommand() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim FILE|SCENARIO",
		Short: "Run a lab in deterministic virtual time and print the report",
		Long: `sim runs a lab file (or a built-in scenario, see "lab scenarios") inside the
discrete-event simulator. The same seed gives the same report, byte for byte.

With --compare a,b,c the same seeded request stream goes through each setting:
a name of one of the lab's compare entries, or an algorithm (see "lab algorithms").
Without --compare, a lab with compare entries runs all of them; otherwise the
lab runs as written.

With --seeds every setting runs on each seed, in parallel on all cores, and each
figure is the mean over the seeds with a 95% interval (docs/sweeps.md).`,
		Example: `  lab sim rr-slow --compare round-robin,least-outstanding,p2c
  lab sim rr-slow --seeds 30 --compare round-robin,p2c
  lab sim herd --json
  lab sim my-lab.yaml --seed 7 --duration 60s --series --json > run.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSim(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], f, cmd.Flags().Changed)
		},
	}
	reportFlags(cmd, &f)
	cmd.Flags().BoolVar(&f.check, "check", false, "check invariants after every event (slower)")
	cmd.Flags().BoolVar(&f.claims, "claims", false, "check the built-in scenario's narration, claim by claim, on each seed, instead of printing the report")
	cmd.Flags().IntVar(&f.maxPending, "max-pending", sim.DefaultMaxPending,
		"stop a run whose pending requests, requests at one server or queued events pass N, or that fires more than N events at one instant (the memory guard)")
	return cmd
}

// reportFlags are the flags lab sim and lab run share.
func reportFlags(cmd *cobra.Command, f *simFlags) {
	fl := cmd.Flags()
	fl.Uint64Var(&f.seed, "seed", 0, "random seed (default: the lab file's seed)")
	fl.DurationVar(&f.duration, "duration", 0, "override the lab's duration (e.g. 60s)")
	fl.StringVar(&f.compare, "compare", "", "comma-separated settings or algorithms to compare on one stream")
	fl.BoolVar(&f.json, "json", false, "print the JSON report (docs/report.md)")
	fl.BoolVar(&f.series, "series", false, "include 250 ms time series and the latency CDF in the JSON report (needs --json)")
	fl.StringVar(&f.plot, "plot", "", "also draw p99 over time and latency CDFs into FILE.svg or FILE.png")
	fl.StringVar(&f.seeds, "seeds", "", "run every setting on each seed (N = 1..N, A-B, or 7,9,11) and report means with 95% intervals")
	f.tr = &traceFlags{}
	f.tr.add(cmd)
	costFlag(cmd, &f.maxCost)
}

func runSim(out, errOut io.Writer, arg string, f simFlags, changed func(flag string) bool) error {
	lab, settings, err := prepare(arg, f, changed)
	if err != nil {
		return err
	}
	if f.maxPending < 1 {
		return usageError{fmt.Errorf("--max-pending: must be at least 1, got %d", f.maxPending)}
	}
	if err := checkCost(lab, settings, assemble.Kept{Sim: true, Series: needSeries(lab, f)}, f.maxCost); err != nil {
		return err
	}
	if f.claims {
		if f.json || f.plot != "" || f.tr.files.Any() || f.tr.replay != "" {
			return usageError{fmt.Errorf("--claims prints the narration's claims, not the report: drop --json, --plot and the exports")}
		}
		seeds, err := seedsOf(f, changed("seed"))
		if err != nil {
			return err
		}
		return simClaims(out, errOut, lab, settings, seeds, f)
	}
	if seeds, err := seedsOf(f, changed("seed")); err != nil || seeds != nil {
		if err == nil {
			err = f.tr.refuseWithSeeds(seeds)
		}
		if err != nil {
			return err
		}
		return simSeeds(out, errOut, lab, settings, seeds, f)
	}
	rep, err := f.tr.compare(lab, settings, guarded(sim.Options{Series: needSeries(lab, f), Check: f.check, MaxPending: f.maxPending}, f.maxCost))
	if err != nil {
		return err
	}
	return printReport(out, errOut, rep, f)
}

// needSeries reports whether a run of lab needs its 250 ms series: asked
// for, for the plot, or for the recovery verdicts of a script with events
// that end (verdict.Transients).
func needSeries(lab *labfile.Lab, f simFlags) bool {
	return f.series || f.plot != "" || verdict.HasTransients(lab)
}

// prepare loads the lab, applies --seed and --duration and picks the
// settings; every problem is a usage error (exit 2). changed reports
// whether a flag was given.
func prepare(arg string, f simFlags, changed func(flag string) bool) (*labfile.Lab, []labfile.Setting, error) {
	if f.series && !f.json {
		return nil, nil, usageError{fmt.Errorf("--series: the series are part of the JSON report: add --json (--plot draws them without --series)")}
	}
	lab, err := loadLab(arg)
	if err != nil {
		return nil, nil, err
	}
	if changed("seed") {
		lab.Seed = f.seed
	}
	if changed("duration") && f.duration <= 0 {
		return nil, nil, usageError{fmt.Errorf("--duration %v: must be positive", f.duration)}
	}
	if f.duration > 0 {
		if err := lab.Apply("duration", f.duration.String()); err != nil {
			return nil, nil, usageError{fmt.Errorf("--duration: %w", locate(err, arg, "duration"))}
		}
	}
	if err := checkPlotPath(f.plot); err != nil {
		return nil, nil, usageError{err}
	}
	settings, err := chooseSettings(lab, f.compare)
	if err != nil {
		return nil, nil, usageError{err}
	}
	if err := f.tr.prepare(lab, settings, f.duration > 0); err != nil {
		return nil, nil, err
	}
	return lab, settings, nil
}

// printReport prints the table or the JSON, then draws the plot (if
// asked): a plot that cannot be drawn is an error after the report.
func printReport(out, errOut io.Writer, rep *report.Report, f simFlags) error {
	shown := rep
	if !f.series {
		shown = rep.WithoutSeries() // the series were only for the plot or the recovery verdicts
	}
	var err error
	if f.json {
		err = shown.WriteJSON(out)
	} else {
		err = shown.WriteTable(out)
	}
	if err != nil || f.plot == "" {
		return err
	}
	if err := output.Plot(rep, f.plot); err != nil {
		return fmt.Errorf("the report is printed, but not the plot: %w", err)
	}
	fmt.Fprintf(errOut, "plot written to %s\n", f.plot)
	return nil
}

// checkPlotPath refuses, before anything runs, a --plot file that cannot
// be written: a wrong extension or a directory that does not exist.
func checkPlotPath(path string) error {
	if path == "" {
		return nil
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".svg" && ext != ".png" {
		return fmt.Errorf("--plot %s: the file must end in .svg or .png", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Errorf("--plot %s: no directory %s to write it in", path, filepath.Dir(path))
	}
	return nil
}

// chooseSettings turns --compare (or the lab's own compare list) into settings.
func chooseSettings(lab *labfile.Lab, compare string) ([]labfile.Setting, error) {
	if compare == "" {
		return sim.DefaultSettings(lab), nil
	}
	var out []labfile.Setting
	for _, item := range strings.Split(compare, ",") {
		item = strings.TrimSpace(item)
		idx := slices.IndexFunc(lab.Compare, func(s labfile.Setting) bool { return s.Name == item })
		switch {
		case idx >= 0:
			out = append(out, lab.Compare[idx])
		case slices.Contains(policy.Algorithms(), item):
			out = append(out, labfile.Setting{Name: item, Algorithm: item})
		default:
			var names []string
			for _, s := range lab.Compare {
				names = append(names, s.Name)
			}
			return nil, fmt.Errorf("--compare: %q is neither a setting of this lab nor an algorithm%s (settings: %s; algorithms: %s)",
				item, suggest.DidYouMean(item, append(names, policy.Algorithms()...), false),
				strings.Join(names, ", "), strings.Join(policy.Algorithms(), ", "))
		}
	}
	return out, nil
}
