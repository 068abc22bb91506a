package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/shell/wire"
)

type liveFlags struct {
	logs    string
	verbose bool
}

func (lf *liveFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&lf.logs, "logs", "", "write the processes' logs to FILE (default: a file in the temp directory)")
	cmd.Flags().BoolVarP(&lf.verbose, "verbose", "v", false, "debug logging of lab itself")
}

// liveOptions opens the log file and finds the binary to start processes with.
func (lf *liveFlags) options(errOut io.Writer) (livelab.Options, func(), error) {
	launch, err := livelab.SelfLauncher()
	if err != nil {
		return livelab.Options{}, nil, err
	}
	path := lf.logs
	if path == "" {
		path = filepath.Join(os.TempDir(), fmt.Sprintf("lblab-%d.log", os.Getpid()))
	}
	f, err := os.Create(path)
	if err != nil {
		return livelab.Options{}, nil, usageError{fmt.Errorf("--logs: %w", err)}
	}
	fmt.Fprintf(errOut, "process logs: %s\n", path)
	log := wire.Logger("lab", lf.verbose)
	return livelab.Options{Launch: launch, Logs: f, Log: log}, func() { _ = log.Sync(); f.Close() }, nil
}

// interruptible is a context ended by Ctrl-C or SIGTERM.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runCommand() *cobra.Command {
	var f simFlags
	var lf liveFlags
	cmd := &cobra.Command{
		Use:   "run FILE|SCENARIO",
		Short: "Run a lab live: real backend, lb and loadgen processes on 127.0.0.1",
		Long: `run starts the processes a lab file describes on 127.0.0.1 (free ports), waits
until they are ready, applies the script's timed events through their admin APIs,
runs the loadgen, prints the same report as "lab sim" (mode "live") and stops
every process - on a normal exit, on Ctrl-C, or if lab itself dies.

Each compare setting runs on its own fresh set of processes, one after another,
with the same seeded request stream as "lab sim".`,
		Example: `  lab run rr-slow --compare round-robin,p2c
  lab run my-lab.yaml --duration 30s --json > live.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lab, settings, err := prepare(args[0], f, cmd.Flags().Changed("seed"))
			if err != nil {
				return err
			}
			opts, closeLogs, err := lf.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLogs()
			ctx, stop := interruptible()
			defer stop()
			rep, err := livelab.Run(ctx, lab, settings, livelab.RunOptions{Options: opts,
				Series: f.series || f.plot != "", Progress: cmd.ErrOrStderr()})
			if err != nil {
				return err
			}
			return printReport(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep, f)
		},
	}
	reportFlags(cmd, &f)
	lf.add(cmd)
	return cmd
}

func upCommand() *cobra.Command {
	var lf liveFlags
	var listen, lbAddr string
	cmd := &cobra.Command{
		Use:   "up [FILE|SCENARIO]",
		Short: "Run the live playground (or a lab) until Ctrl-C; point curl or hey at the balancer",
		Long: `up starts a lab's processes on 127.0.0.1 - by default the playground: 5 backends,
p2c, a loadgen at 200 requests/s - and keeps them running until Ctrl-C. It prints
the balancer's URL (for curl and hey) and serves a controller on --listen:
GET /api/state and POST /api/chaos, which "lab chaos" uses.`,
		Example: `  lab up
  curl -i http://127.0.0.1:8080/hello
  lab chaos kill s2`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := "playground"
			if len(args) == 1 {
				name = args[0]
			}
			lab, err := loadLab(name)
			if err != nil {
				return err
			}
			if err := lab.Apply("duration", "8760h"); err != nil { // a year: until Ctrl-C
				return err
			}
			opts, closeLogs, err := lf.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLogs()
			opts.LBAddr = lbAddr
			ctx, stop := interruptible()
			defer stop()
			err = livelab.Up(ctx, lab, livelab.UpOptions{Options: opts, Listen: listen, Out: cmd.OutOrStdout()})
			fmt.Fprintln(cmd.ErrOrStderr(), "lab up: stopped every process")
			return err
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8000", "the controller's address (state and chaos API)")
	cmd.Flags().StringVar(&lbAddr, "lb", "127.0.0.1:8080", "the balancer's traffic address")
	lf.add(cmd)
	return cmd
}

func chaosCommand() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "chaos ACTION [TARGET] [key=value...]",
		Short: "Send a drill to the running lab (lab up)",
		Long: `chaos sends one drill to the lab started by "lab up", like a script event of a
lab file. Actions: slow, restore, kill, restart, gc, fail, recover, errors, rate,
algorithm, add-server, remove-server, set. Settings: speed=0.25, pause=300ms,
share=0.1, rate=800, algorithm=p2c, or any dotted lab path for set
(clients.budget=0.1, balancers.breaker.enabled=true).`,
		Example: `  lab chaos kill s2
  lab chaos restart s2
  lab chaos slow s3 speed=0.25
  lab chaos gc s1 pause=300ms
  lab chaos algorithm algorithm=round-robin
  lab chaos set clients.retries=2 clients.budget=0.1`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ev, err := livelab.ParseDrill(args)
			if err != nil {
				return usageError{err}
			}
			ctx, stop := interruptible()
			defer stop()
			applied, err := livelab.SendDrill(ctx, addr, ev)
			var refused *livelab.StatusError
			if errors.As(err, &refused) && refused.Code == 400 {
				return usageError{err} // the drill itself was bad: exit 2
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "applied:", applied)
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "lab-url", "127.0.0.1:8000", "the address of the lab up controller")
	return cmd
}
