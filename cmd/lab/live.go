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
	"time"

	"github.com/spf13/cobra"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/wire"
)

type liveFlags struct {
	logs       string
	verbose    bool
	maxServers int
}

func (lf *liveFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&lf.logs, "logs", "", "write the processes' logs to FILE (default: a file in the temp directory)")
	cmd.Flags().BoolVarP(&lf.verbose, "verbose", "v", false, "debug logging of lab itself")
	cmd.Flags().IntVar(&lf.maxServers, "max-servers", livelab.DefaultMaxServers,
		"refuse a lab with more servers than this (each server is a process)")
}

// check refuses flag values no run can use.
func (lf *liveFlags) check() error {
	if lf.maxServers < 1 {
		return usageError{fmt.Errorf("--max-servers: must be at least 1, got %d", lf.maxServers)}
	}
	return nil
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
	return livelab.Options{Launch: launch, Logs: f, Log: log, MaxServers: lf.maxServers}, func() { _ = log.Sync(); f.Close() }, nil
}

// interruptible is a context ended by Ctrl-C or SIGTERM.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runCommand() *cobra.Command {
	var f simFlags
	var lf liveFlags
	var dashboard string
	cmd := &cobra.Command{
		Use:   "run FILE|SCENARIO",
		Short: "Run a lab live: real backend, lb and loadgen processes on 127.0.0.1",
		Long: `run starts the processes a lab file describes on 127.0.0.1 (free ports), waits
until they are ready, applies the script's timed events through their admin APIs,
runs the loadgen, prints the same report as "lab sim" (mode "live") and stops
every process - on a normal exit, on Ctrl-C, or if lab itself dies.

Each compare setting runs on its own fresh set of processes, one after another,
with the same seeded request stream as "lab sim". Meanwhile the live dashboard
of the setting running is served on --dashboard (if that address is taken, lab
run warns and runs without it).`,
		Example: `  lab run rr-slow --compare round-robin,p2c
  lab run my-lab.yaml --duration 30s --json > live.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lab, settings, err := prepare(args[0], f, cmd.Flags().Changed("seed"))
			if err != nil {
				return err
			}
			if err := lf.check(); err != nil {
				return err
			}
			if err := livelab.CheckRun(lab, settings, lf.maxServers); err != nil {
				return usageError{err} // refused before anything starts: exit 2
			}
			opts, closeLogs, err := lf.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLogs()
			ctx, stop := interruptible()
			defer stop()
			rep, err := livelab.Run(ctx, lab, settings, livelab.RunOptions{Options: opts,
				Series: f.series || f.plot != "", Progress: cmd.ErrOrStderr(), Dashboard: dashboard})
			if err != nil {
				return err
			}
			return printReport(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep, f)
		},
	}
	reportFlags(cmd, &f)
	lf.add(cmd)
	cmd.Flags().StringVar(&dashboard, "dashboard", "127.0.0.1:8000", `serve the live dashboard on ADDR while the lab runs ("" = none)`)
	return cmd
}

func upCommand() *cobra.Command {
	var lf liveFlags
	var listen, lbAddr string
	cmd := &cobra.Command{
		Use:   "up [FILE|SCENARIO]",
		Short: "Run the live playground (or a lab) until Ctrl-C; point curl or hey at the balancer",
		Long: `up starts a lab's processes on 127.0.0.1 - by default the playground: 5 backends,
p2c, a loadgen at 200 requests/s - and keeps them running until Ctrl-C. It serves
the live dashboard on --listen and prints its URL first, then the balancer's URL
(for curl and hey). The same address serves the controller API: GET /api/state,
/api/snapshot, /api/stream, /api/scenarios and /api/sd, POST /api/chaos (which
"lab chaos" uses) and /api/scenario (docs/dashboard.md).`,
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
			if err := lf.check(); err != nil {
				return err
			}
			if err := livelab.CheckFleet(lab, lf.maxServers); err != nil {
				return usageError{err} // refused before anything starts: exit 2
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
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8000", "the controller's address (dashboard, state and chaos API)")
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

func dashboardCommand() *cobra.Command {
	var lbs, backends, backendsDNS, loadgen, listen, labArg string
	var dnsEvery time.Duration
	var check, verbose bool
	cmd := &cobra.Command{
		Use:   "dashboard --lb NAME=ADMINADDR[,...] --backends NAME=ADMINADDR[,...] --loadgen ADMINADDR",
		Short: "Serve the live dashboard and chaos API for lab processes started elsewhere (compose)",
		Long: `dashboard attaches to running lb, backend and loadgen processes by their admin
addresses and serves the same dashboard and controller API as "lab up" on
--listen. It starts and stops nothing, so adding a server and switching
scenarios are not available (the API answers 400 saying so). --lab names the
lab file the processes run, to check drills against (default: the playground).`,
		Example: `  lab dashboard --lb lb1=lb:9080 --backends s1=s1:9081,s2=s2:9081 --loadgen loadgen:9090 --listen 0.0.0.0:8000`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := attachOptions(lbs, backends, loadgen, labArg)
			if err == nil {
				o.BackendsDNS, err = dnsOption(backendsDNS, dnsEvery)
			}
			if err != nil {
				return usageError{err}
			}
			if _, err := o.Check(); err != nil {
				return usageError{err}
			}
			if check {
				fmt.Fprintf(cmd.OutOrStdout(), "lab dashboard: configuration ok: %d balancers, %d backends%s, loadgen %s\n", len(o.LBs), len(o.Backends), dnsSummary(o.BackendsDNS), o.Loadgen)
				return nil
			}
			log := wire.Logger("lab", verbose)
			defer func() { _ = log.Sync() }()
			o.Listen, o.Out, o.Log, o.Logs = listen, cmd.OutOrStdout(), log, io.Discard
			ctx, stop := interruptible()
			defer stop()
			return livelab.Attach(ctx, o)
		},
	}
	cmd.Flags().StringVar(&lbs, "lb", "", "the balancers' admin addresses, NAME=HOST:PORT,...")
	cmd.Flags().StringVar(&backends, "backends", "", "the backends' admin addresses, NAME=HOST:PORT,... (in fleet order)")
	cmd.Flags().StringVar(&backendsDNS, "backends-dns", "", "follow the backends behind a DNS name, HOST:ADMINPORT (a compose service with replicas,\na Kubernetes headless service): its A records re-resolved every --dns-interval")
	cmd.Flags().DurationVar(&dnsEvery, "dns-interval", discover.DefaultEvery, "how often --backends-dns is re-resolved")
	cmd.Flags().StringVar(&loadgen, "loadgen", "", "the loadgen's admin address, HOST:PORT")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8000", "the dashboard's address")
	cmd.Flags().StringVar(&labArg, "lab", "", "the lab file or scenario the processes run (to check drills; default: the playground)")
	cmd.Flags().BoolVar(&check, "check-config", false, "validate the flags, print a summary and exit (0 ok, 2 bad)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "debug logging")
	return cmd
}

// attachOptions parses lab dashboard's flags.
func attachOptions(lbs, backends, loadgen, labArg string) (livelab.AttachOptions, error) {
	var o livelab.AttachOptions
	var err error
	if lbs != "" {
		if o.LBs, err = livelab.ParseEndpoints("--lb", lbs); err != nil {
			return o, err
		}
	}
	if backends != "" {
		if o.Backends, err = livelab.ParseEndpoints("--backends", backends); err != nil {
			return o, err
		}
	}
	o.Loadgen = loadgen
	if labArg != "" {
		if o.Lab, err = loadLab(labArg); err != nil {
			return o, err
		}
	}
	return o, nil
}
