package main

import (
	"context"
	"fmt"
	"io"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/plan"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/sim"
)

// seedsOf reads --seeds (nil without it), refusing it beside --seed.
func seedsOf(f simFlags, seedSet bool) ([]uint64, error) {
	if f.seeds == "" {
		return nil, nil
	}
	if seedSet {
		return nil, usageError{fmt.Errorf("--seed and --seeds: give one (--seeds runs every seed it lists)")}
	}
	if f.plot != "" {
		return nil, usageError{fmt.Errorf("--plot with --seeds: lab sim and lab run draw one seed's runs; for curves with intervals use lab sweep --plot")}
	}
	seeds, err := plan.ParseSeeds(f.seeds)
	if err != nil {
		return nil, usageError{err}
	}
	return seeds, nil
}

// simSeeds runs lab sim --seeds: every setting on every seed, in parallel.
// --series keeps the first seed's series (that seed's runs are the report's
// runs).
func simSeeds(out, errOut io.Writer, lab *labfile.Lab, settings []labfile.Setting, seeds []uint64, f simFlags) error {
	b := plan.Batch{What: "lab sim " + lab.Name, Labs: plan.WithSeeds(lab, seeds), Settings: settings}
	verdicts := verdict.HasTransients(lab) // each seed's series, for its recovery verdicts
	reps, err := plan.Sim{Options: func(i int) sim.Options {
		return guarded(sim.Options{Series: f.series && i == 0 || verdicts, Check: f.check, MaxPending: f.maxPending}, f.maxCost)
	}}.Run(context.Background(), b, errOut)
	if err != nil {
		return err
	}
	for i, rep := range reps { // the verdicts are in (simulateRuns)
		if i > 0 || !f.series {
			*rep = *rep.WithoutSeries() // only the first seed's are printed, with --series
		}
	}
	return printSeeds(out, errOut, seeds, reps, f)
}

// liveSeeds runs lab run --seeds: the seeds one after another, each with
// every setting on fresh processes.
func liveSeeds(ctx context.Context, out, errOut io.Writer, lab *labfile.Lab, settings []labfile.Setting, seeds []uint64,
	f simFlags, opts livelab.RunOptions) error {
	b := plan.Batch{What: "lab run " + lab.Name, Labs: plan.WithSeeds(lab, seeds), Settings: settings}
	reps, err := plan.Live{Options: opts}.Run(ctx, b, errOut)
	if err != nil && ctx.Err() == nil {
		return err
	}
	if ctx.Err() != nil { // interrupted: report the seeds that finished
		fmt.Fprintf(errOut, "lab run: interrupted after %d of %d seeds\n", len(reps), len(seeds))
		if len(reps) == 0 {
			return ctx.Err()
		}
		if len(reps) == 1 {
			err = printReport(out, errOut, reps[0], f)
		} else {
			err = printSeeds(out, errOut, seeds[:len(reps)], reps, f)
		}
		if err != nil {
			return err
		}
		return interrupted{fmt.Sprintf("run %s: interrupted after %d of %d seeds (the report above covers those)", lab.Name, len(reps), len(seeds))}
	}
	return printSeeds(out, errOut, seeds[:len(reps)], reps, f)
}

func printSeeds(out, errOut io.Writer, seeds []uint64, reps []*report.Report, f simFlags) error {
	rep, err := report.CombineSeeds(seeds, reps)
	if err != nil {
		return err
	}
	rep.AddSeedRecovery(reps)
	return printReport(out, errOut, rep, f)
}

// simRunner is a simulated batch with the same options for every lab.
func simRunner(o sim.Options) plan.Sim {
	return plan.Sim{Options: func(int) sim.Options { return o }}
}
