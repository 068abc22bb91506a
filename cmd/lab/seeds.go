package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
)

// maxSeeds bounds --seeds: a typo like 1-3000000 would otherwise run for hours.
const maxSeeds = 10000

// parseSeeds reads --seeds: "N" is seeds 1 to N; "A-B" seeds A to B; a
// comma list takes seeds and ranges as written ("7,9,11", "1-5,9"). Seed i
// runs the lab with seed: i. At least two seeds, none twice.
func parseSeeds(spec string) ([]uint64, error) {
	bad := func(format string, a ...any) error {
		return usageError{fmt.Errorf("--seeds %s: "+format, append([]any{spec}, a...)...)}
	}
	spec = strings.TrimSpace(spec)
	if n, err := strconv.ParseUint(spec, 10, 64); err == nil { // a count
		if n < 2 {
			return nil, bad("give at least 2 seeds for intervals (a count N runs seeds 1 to N; for one seed use --seed)")
		}
		if n > maxSeeds {
			return nil, bad("at most %d seeds", maxSeeds)
		}
		spec = "1-" + spec
	}
	var seeds []uint64
	seen := map[uint64]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, bad("%q is not a seed (want N, A-B, or a comma list like 7,9,11)", item)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
				return nil, bad("%q is not a range of seeds (want A-B, like 1-30)", item)
			}
			if b < a {
				return nil, bad("the range %s is empty: its first seed must not exceed its last", item)
			}
		}
		if b-a >= maxSeeds || len(seeds)+int(b-a) >= maxSeeds {
			return nil, bad("at most %d seeds", maxSeeds)
		}
		for s := a; ; s++ {
			if seen[s] {
				return nil, bad("seed %d is given twice", s)
			}
			seen[s] = true
			seeds = append(seeds, s)
			if s == b {
				break
			}
		}
	}
	if len(seeds) < 2 {
		return nil, bad("give at least 2 seeds for intervals (for one seed use --seed)")
	}
	return seeds, nil
}

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
	return parseSeeds(f.seeds)
}

// withSeeds returns one copy of lab per seed.
func withSeeds(lab *labfile.Lab, seeds []uint64) []*labfile.Lab {
	labs := make([]*labfile.Lab, len(seeds))
	for i, s := range seeds {
		labs[i] = lab.Clone()
		labs[i].Seed = s
	}
	return labs
}

// simSeeds runs lab sim --seeds: every setting on every seed, in parallel.
// --series keeps the first seed's series (that seed's runs are the report's
// runs).
func simSeeds(out, errOut io.Writer, lab *labfile.Lab, settings []labfile.Setting, seeds []uint64, f simFlags) error {
	b := batch{what: "lab sim " + lab.Name, labs: withSeeds(lab, seeds), settings: settings}
	verdicts := report.HasTransients(lab) // each seed's series, for its recovery verdicts
	reps, err := b.simulate(func(i int) sim.Options {
		return sim.Options{Series: f.series && i == 0 || verdicts, Check: f.check, MaxPending: f.maxPending}
	}, errOut)
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
	b := batch{what: "lab run " + lab.Name, labs: withSeeds(lab, seeds), settings: settings}
	reps, err := b.live(ctx, opts, errOut)
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
