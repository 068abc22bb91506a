package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	labproc "github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/plan"
	"github.com/lblab/lblab/internal/torture"
)

func tortureCommand() *cobra.Command {
	var cfg torture.Config
	var show, live bool
	var duration time.Duration
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
the same way. The exit status is 1 when any lab failed (docs/reliability.md).

With --live each lab (drawn by the same generator, at most 4 servers, 2
balancers and 4 seconds) runs on real processes, as "lab run" does, one lab
after the other, with process faults beside its script: SIGSTOP and SIGCONT of
a balancer, a backend or the loadgen, SIGKILL of a balancer or a backend (with
and without restarting it, as --restart on-failure does), and busy processes
that starve them of CPU. Each run must account for every request exactly once,
leave no request to the drain limit, leave no process behind and bring lab's
own goroutines and descriptors back to where they were.`,
		Example: `  lab torture                       # 1000 labs, seeds 1..1000
  lab torture --runs 20000 --seed 5000
  lab torture --seed 17 --runs 1 --show   # one lab, printed
  lab torture --live --runs 20            # 20 labs on real processes, with process faults`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Runs < 1 || cfg.Workers < 1 || cfg.Shrink < 0 || cfg.ShrinkRuns < 1 {
				return usageError{fmt.Errorf("--runs and --workers must be at least 1, --shrink at least 0 and --shrink-runs at least 1")}
			}
			if st, err := os.Stat(cfg.Dir); err != nil || !st.IsDir() {
				return usageError{fmt.Errorf("--dir %s: not a directory", cfg.Dir)}
			}
			out := cmd.OutOrStdout()
			if live {
				if !cmd.Flags().Changed("runs") {
					cfg.Runs = 20
				}
				if !cmd.Flags().Changed("shrink") {
					cfg.Shrink = 1
				}
				if !cmd.Flags().Changed("shrink-runs") {
					cfg.ShrinkRuns = 30
				}
				return tortureLive(cmd, cfg, duration, show)
			}
			if cmd.Flags().Changed("duration") {
				return usageError{fmt.Errorf("--duration: only with --live")}
			}
			if show {
				for i := range cfg.Runs {
					d := torture.Draw(cfg.First + uint64(i))
					fmt.Fprintf(out, "# seed %d: %v\n%s", d.Seed, d.Features, d.Tree.YAML())
				}
			}
			prog := plan.NewProgress(cmd.ErrOrStderr(), "lab torture", cfg.Runs) // a line on a terminal, nothing elsewhere
			prog.Units, cfg.Step = "labs", prog.Step
			s := torture.Run(cfg)
			prog.Clear()
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
	fl.BoolVar(&live, "live", false, "run the labs on real processes with process faults (default --runs 20, --shrink 1, --shrink-runs 30)")
	fl.DurationVar(&duration, "duration", 4*time.Second, "--live: cap each lab's duration (events and faults past it are dropped)")
	return cmd
}

// tortureLive runs lab torture --live.
func tortureLive(cmd *cobra.Command, cfg torture.Config, duration time.Duration, show bool) error {
	if duration <= 0 {
		return usageError{fmt.Errorf("--duration: must be positive, got %v", duration)}
	}
	launch, err := labproc.SelfLauncher()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if show {
		for i := range cfg.Runs {
			d := torture.DrawLive(cfg.First + uint64(i))
			fmt.Fprintf(out, "# seed %d: %v\n%s", d.Seed, d.Features, d.Tree.YAML())
		}
	}
	ctx, stop := interruptible()
	defer stop()
	lc := torture.LiveConfig{First: cfg.First, Runs: cfg.Runs, MaxDuration: duration, Launch: launch,
		Shrink: cfg.Shrink, ShrinkRuns: cfg.ShrinkRuns, Dir: cfg.Dir, Progress: cmd.ErrOrStderr()}
	s := torture.RunLive(ctx, lc)
	s.Write(out, lc)
	if len(s.Failures) > 0 {
		return errors.New("torture --live: some labs failed (see above)")
	}
	return ctx.Err()
}
