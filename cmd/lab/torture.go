package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/torture"
)

func tortureCommand() *cobra.Command {
	var cfg torture.Config
	var show bool
	cmd := &cobra.Command{
		Use:   "torture",
		Short: "Run random labs with random chaos through the simulator's invariant checks",
		Long: `torture draws a random lab from each seed - fleet, speeds, workers, queues,
algorithm, breakers, health checks, retries, budget, hedging, limiters, subsets,
client-side or shared load - and a chaos script (kills, restarts, removals,
additions, slowdowns, GC pauses, error bursts, rate swings, algorithm switches,
settings), each feature on or off by its own coin per lab (swarm testing). Every
lab runs in virtual time with every invariant checked, as "lab sim --check".

A failing lab is printed with its seed, the command that reproduces it and a
shrunk lab file: the smallest script, fleet and settings found that still fail
the same way. The exit status is 1 when any lab failed (docs/reliability.md).`,
		Example: `  lab torture                       # 1000 labs, seeds 1..1000
  lab torture --runs 20000 --seed 5000
  lab torture --seed 17 --runs 1 --show   # one lab, printed`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Runs < 1 || cfg.Workers < 1 || cfg.Shrink < 0 || cfg.ShrinkRuns < 1 {
				return usageError{fmt.Errorf("--runs and --workers must be at least 1, --shrink at least 0 and --shrink-runs at least 1")}
			}
			if st, err := os.Stat(cfg.Dir); err != nil || !st.IsDir() {
				return usageError{fmt.Errorf("--dir %s: not a directory", cfg.Dir)}
			}
			out := cmd.OutOrStdout()
			if show {
				for i := range cfg.Runs {
					d := torture.Draw(cfg.First + uint64(i))
					fmt.Fprintf(out, "# seed %d: %v\n%s", d.Seed, d.Features, d.Tree.YAML())
				}
			}
			prog := newProgress(cmd.ErrOrStderr(), "lab torture", cfg.Runs) // a line on a terminal, nothing elsewhere
			prog.units, cfg.Step = "labs", prog.step
			s := torture.Run(cfg)
			prog.clear()
			s.Write(out, cfg)
			if len(s.Failures) > 0 {
				return errors.New("torture: some labs failed (see above)")
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.Uint64Var(&cfg.First, "seed", 1, "the first lab's seed; lab i is drawn from seed+i")
	fl.IntVar(&cfg.Runs, "runs", 1000, "how many labs to draw and run")
	fl.IntVar(&cfg.Workers, "workers", runtime.NumCPU(), "labs run in parallel")
	fl.IntVar(&cfg.Shrink, "shrink", 3, "how many failing labs to shrink (the first by seed)")
	fl.IntVar(&cfg.ShrinkRuns, "shrink-runs", 400, "simulator runs one shrink may spend")
	fl.StringVar(&cfg.Dir, "dir", os.TempDir(), "where to write shrunk lab files")
	fl.BoolVar(&show, "show", false, "print each drawn lab before running")
	return cmd
}
