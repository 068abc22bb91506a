package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/assemble"
	livelab "github.com/lblab/lblab/internal/lab"
	labadmin "github.com/lblab/lblab/internal/lab/admin"
	labattach "github.com/lblab/lblab/internal/lab/attach"
	labcontrol "github.com/lblab/lblab/internal/lab/control"
	labproc "github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/wire"
)

type liveFlags struct {
	logs         string
	verbose      bool
	maxProcesses int
	access       accessFlags
}

func (lf *liveFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&lf.logs, "logs", "", "write the processes' logs to FILE (default: a file in the temp directory)")
	cmd.Flags().BoolVarP(&lf.verbose, "verbose", "v", false, "debug logging of lab itself")
	cmd.Flags().IntVar(&lf.maxProcesses, livelab.ProcessesFlag, livelab.DefaultMaxProcesses,
		"refuse a lab that would start more processes than this (a backend per server, an lb per balancer or the proxy, the loadgen)")
	lf.access.add(cmd, "the admin token: given to the processes lab starts (default: a random one) and required by the controller (default: $"+wire.TokenEnv+")")
}

// check refuses flag values no run can use; listenFlag and listen are the
// controller's address, which needs a token unless it is loopback.
func (lf *liveFlags) check(listenFlag, listen string) error {
	if lf.maxProcesses < 1 {
		return usageError{fmt.Errorf("--%s: must be at least 1, got %d", livelab.ProcessesFlag, lf.maxProcesses)}
	}
	return lf.access.check(listenFlag, listen)
}

// accessFlags are --token and --allow-host: who may use the controller,
// and the token of the processes.
type accessFlags struct {
	token  string
	allow  []string
	access wire.Access
}

func (af *accessFlags) add(cmd *cobra.Command, tokenHelp string) {
	cmd.Flags().StringVar(&af.token, "token", "", tokenHelp)
	cmd.Flags().StringSliceVar(&af.allow, "allow-host", nil, "further Host names the controller answers to: NAME, NAME:PORT, or * (needs a token); default: $"+wire.AllowHostEnv)
}

// check reads the flags (and the environment) and refuses a controller at
// listen that anyone could drive: a non-loopback address needs a token.
func (af *accessFlags) check(listenFlag, listen string) error {
	a, err := wire.NewAccess(af.token, af.allow)
	if err == nil && listen != "" {
		err = a.Check(listenFlag, listen)
	}
	if err != nil {
		return usageError{err}
	}
	af.access = a
	return nil
}

// liveOptions opens the log file and finds the binary to start processes with.
func (lf *liveFlags) options(errOut io.Writer) (livelab.Options, func(), error) {
	launch, err := labproc.SelfLauncher()
	if err != nil {
		return livelab.Options{}, nil, err
	}
	f, err := openLogs(lf.logs)
	if err != nil {
		return livelab.Options{}, nil, usageError{fmt.Errorf("--logs: %w", err)}
	}
	fmt.Fprintf(errOut, "process logs: %s\n", f.Name())
	log := wire.Logger("lab", lf.verbose)
	return livelab.Options{Launch: launch, Logs: f, Log: log, MaxProcesses: lf.maxProcesses,
		Token: lf.access.access.Token, Access: lf.access.access}, func() { _ = log.Sync(); f.Close() }, nil
}

// openLogs opens the processes' log for writing, readable by its owner
// only (0600): path, or else a new lblab-PID.log in the temp directory
// (lblab-PID-*.log when that name is taken, since anyone may create files
// there). A regular file given with --logs that is open to others is
// closed to them.
func openLogs(path string) (*os.File, error) {
	if path == "" {
		p := filepath.Join(os.TempDir(), fmt.Sprintf("lblab-%d.log", os.Getpid()))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return os.CreateTemp(os.TempDir(), fmt.Sprintf("lblab-%d-*.log", os.Getpid()))
		}
		return f, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s is open to other users (%v) and cannot be closed: %w", path, fi.Mode().Perm(), err)
		}
	}
	return f, nil
}

// interruptible is a context ended by Ctrl-C or SIGTERM.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func runCommand() *cobra.Command {
	var f simFlags
	var lf liveFlags
	var dashboard, kinds string
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
  lab run rr-slow --balancer haproxy
  lab run rr-slow --compare round-robin,least-outstanding --balancer lb,haproxy,nginx
  lab run rr-slow --seeds 5 --compare round-robin,p2c --duration 10s
  lab run my-lab.yaml --duration 30s --json > live.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			lab, settings, err := prepare(args[0], f, cmd.Flags().Changed)
			if err != nil {
				return err
			}
			var kindList []string
			if kinds != "" {
				if kindList, err = parseKinds(kinds); err != nil {
					return usageError{err}
				}
				if settings, err = withKinds(lab, settings, kindList, f.compare != "", cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			seeds, err := seedsOf(f, cmd.Flags().Changed("seed"))
			if err == nil {
				err = f.tr.refuseWithSeeds(seeds)
			}
			if err != nil {
				return err
			}
			if err := lf.check("--dashboard", dashboard); err != nil {
				return err
			}
			if dashboard != "" {
				if dashboard, err = labcontrol.ListenAddr("--dashboard", dashboard); err != nil {
					return usageError{err}
				}
			}
			if err := livelab.CheckRun(lab, settings, lf.maxProcesses); err != nil {
				return usageError{simHint(err, args[0])} // refused before anything starts: exit 2
			}
			if err := checkCost(lab, settings, assemble.Kept{}, f.maxCost); err != nil {
				return err
			}
			lgArgs, err := f.tr.loadgenArgs(settings)
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
			ropts := livelab.RunOptions{Options: opts, Series: needSeries(lab, f), Progress: cmd.ErrOrStderr(),
				Dashboard: dashboard, LoadgenArgs: lgArgs}
			if seeds != nil {
				return liveSeeds(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), lab, settings, seeds, f, ropts)
			}
			rep, err := livelab.Run(ctx, lab, settings, ropts)
			f.tr.checkOut(cmd.ErrOrStderr(), err)
			if err != nil {
				return err
			}
			if len(kindList) > 1 && !rep.Interrupted {
				base, _ := chooseSettings(lab, f.compare) // chosen above
				pred, err := predictions(lab, base, settings)
				if err != nil {
					return err
				}
				rep.Runs = interleave(rep.Runs, pred)
			}
			verdict.AddRecovery(rep, lab, settings...)
			if err := printReport(cmd.OutOrStdout(), cmd.ErrOrStderr(), rep, f); err != nil || !rep.Interrupted {
				return err
			}
			return interrupted{fmt.Sprintf("run %s: interrupted after %gs of %v (the report above covers what ran)", lab.Name, rep.DurationS, lab.Duration)}
		},
	}
	reportFlags(cmd, &f)
	lf.add(cmd)
	cmd.Flags().StringVar(&dashboard, "dashboard", labcontrol.DefaultControllerAddr, `serve the live dashboard on ADDR while the lab runs ("" = none)`)
	cmd.Flags().StringVar(&kinds, "balancer", "", balancerHelp)
	return cmd
}

func upCommand() *cobra.Command {
	var lf liveFlags
	var listen, lbAddr, restart, kind string
	var maxCost float64
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
			if kind != "" {
				if _, err := parseKinds(kind); err != nil || strings.Contains(kind, ",") {
					return usageError{fmt.Errorf("--balancer: one of %s, got %q", strings.Join(labfile.Kinds(), ", "), kind)}
				}
				if lab, err = swapKind(lab, kind, cmd.ErrOrStderr()); err != nil {
					return err
				}
			}
			if err := lf.check("--listen", listen); err != nil {
				return err
			}
			policy, err := labproc.ParseRestart(restart)
			if err != nil {
				return usageError{err}
			}
			if err := livelab.CheckFleet(lab, lf.maxProcesses); err != nil {
				return usageError{simHint(err, name)} // refused before anything starts: exit 2
			}
			if err := checkCost(lab, nil, assemble.Kept{}, maxCost); err != nil {
				return err
			}
			if listen, err = labcontrol.ListenAddr("--listen", listen); err == nil {
				lbAddr, err = labcontrol.ListenAddr("--lb", lbAddr)
			}
			if err == nil {
				err = labcontrol.CheckFree("--listen", listen)
			}
			if err == nil {
				err = labcontrol.CheckFree("--lb", lbAddr)
			}
			if err != nil {
				return usageError{err} // a port in use: refused before anything starts
			}
			opts, closeLogs, err := lf.options(cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer closeLogs()
			opts.LBAddr, opts.Restart = lbAddr, policy
			opts.Budget, _ = budget(maxCost) // checked above
			ctx, stop := interruptible()
			defer stop()
			err = livelab.Up(ctx, lab, livelab.UpOptions{Options: opts, Listen: listen, Out: cmd.OutOrStdout(), Command: invokedAs()})
			fmt.Fprintln(cmd.ErrOrStderr(), "lab up: stopped every process")
			return err
		},
	}
	cmd.Flags().StringVar(&listen, "listen", labcontrol.DefaultControllerAddr, "the controller's address (dashboard, state and chaos API)")
	cmd.Flags().StringVar(&lbAddr, "lb", "127.0.0.1:8080", "the balancer's traffic address")
	cmd.Flags().StringVar(&restart, "restart", string(labproc.RestartNever), "when a backend or balancer process exits on its own: never (it stays down, shown as EXITED)\nor on-failure (started again on its ports after a signal or a non-zero exit)")
	cmd.Flags().StringVar(&kind, "balancer", "", "run the balancer tier as KIND: lb, haproxy, nginx or caddy (balancers.kind, docs/external.md)")
	lf.add(cmd)
	costFlag(cmd, &maxCost)
	return cmd
}

// untimed lists the drills without an undo, which cannot be time-boxed.
func untimed() []string {
	var out []string
	for _, d := range labfile.Drills {
		if !d.Undoable() {
			out = append(out, string(d.Action))
		}
	}
	return out
}

// undoPairs says, from the drill table, what ends each drill that has an
// undo: another drill (slow: restore), or the same one with the values in
// force before it (rate, set: back to what was in force).
func undoPairs() string {
	var pairs, back []string
	for _, d := range labfile.Drills {
		switch {
		case !d.Undoable():
		case d.Undo == d.Action:
			back = append(back, string(d.Action))
		default:
			pairs = append(pairs, fmt.Sprintf("%s: %s", d.Action, d.Undo))
		}
	}
	return strings.Join(pairs, ", ") + "; " + strings.Join(back, ", ") + ": back to what was in force"
}

func chaosCommand() *cobra.Command {
	var addr string
	var af accessFlags
	var timeBox time.Duration
	cmd := &cobra.Command{
		Use:   "chaos ACTION [TARGET] [key=value...]",
		Short: "Send a drill to the running lab (lab up)",
		Long: `chaos sends one drill to the lab started by "lab up", like a script event of a
lab file.
Actions: ` + strings.Join(labfile.ActionNames(), ", ") + `.
Settings: speed=0.25, pause=300ms, share=0.1, rate=800, algorithm=p2c, or any
dotted lab path for set (clients.budget=0.1, balancers.breaker.enabled=true).
add-server without a name adds a server like the last one named as a lab file
would (s6 for the first one added to five). --for 30s time-boxes the drill: the
lab undoes it 30 s later (` + undoPairs() + `),
whether or not anyone watches;
` + strings.Join(untimed(), ", ") + ` take no --for (no undo).
In a lab with zones, zone-down, zone-up, zone-slow and zone-restore take a zone
as their target and act on every server in it (zone-down a is kill on each);
link-delay hop=80ms sets the hop between two zones of a region from now on;
partition cuts every link between zones (an attempt that would cross one fails
at once) until heal.
--lab-url takes HOST:PORT or http://HOST:PORT/. The token, when the lab
requires one: --token, else $LBLAB_TOKEN, else the one lab up wrote for its
user to a file named after its address (in $XDG_RUNTIME_DIR/lblab, else
~/.cache/lblab), so the token stays off the command line.`,
		Example: `  lab chaos kill s2
  lab chaos restart s2
  lab chaos slow s3 speed=0.25
  lab chaos slow s3 speed=0.25 --for 30s
  lab chaos gc s1 pause=300ms
  lab chaos algorithm algorithm=round-robin
  lab chaos set clients.retries=2 clients.budget=0.1
  lab chaos add-server
  lab chaos zone-down a --for 30s
  lab chaos --lab-url http://127.0.0.1:8001 kill s2`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ev, err := labfile.ParseDrill(args)
			if err != nil {
				return usageError{err}
			}
			if cmd.Flags().Changed("for") {
				if ev.For != 0 {
					return usageError{errors.New("give the time box once: --for 30s or for=30s")}
				}
				if timeBox <= 0 {
					return usageError{fmt.Errorf("--for: must be > 0, got %v", timeBox)}
				}
				ev.For = timeBox
			}
			if addr, err = labcontrol.DialAddr("--lab-url", addr); err != nil {
				return usageError{err}
			}
			if err := af.check("", ""); err != nil {
				return err
			}
			token := af.access.Token
			if token == "" { // the token file of the lab up running there, if it requires one
				if token, err = labcontrol.RunningToken(addr); err != nil {
					return err
				}
			}
			ctx, stop := interruptible()
			defer stop()
			applied, err := labcontrol.SendDrill(labadmin.WithToken(ctx, token), addr, ev)
			var refused *labadmin.StatusError
			if errors.As(err, &refused) && refused.Code == 400 {
				return usageError{err} // the drill itself was bad: exit 2
			}
			if errors.As(err, &refused) && refused.Code == 401 {
				file, _ := labcontrol.TokenFile(addr)
				return fmt.Errorf("%w\n(lab chaos presents --token, else $%s, else the token lab up wrote to %s)", err, wire.TokenEnv, file)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "applied:", applied)
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "lab-url", labcontrol.DefaultControllerAddr, "the address of the lab up controller (HOST:PORT or http://HOST:PORT)")
	cmd.Flags().StringVar(&af.token, "token", "", "the controller's token, when it requires one (default: $"+wire.TokenEnv+", else the token file of the lab up at --lab-url)")
	cmd.Flags().DurationVar(&timeBox, "for", 0, "time-box the drill: the lab undoes it this long after (e.g. 30s)")
	return cmd
}

func dashboardCommand() *cobra.Command {
	var lbs, backends, backendsDNS, loadgen, listen, labArg string
	var dnsEvery time.Duration
	var check, verbose bool
	var af accessFlags
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
			if err := af.check("--listen", listen); err != nil {
				return err
			}
			o.Token, o.Access = af.access.Token, af.access
			if check {
				fmt.Fprintf(cmd.OutOrStdout(), "lab dashboard: configuration ok: %d balancers, %d backends%s, loadgen %s\n", len(o.LBs), len(o.Backends), dnsSummary(o.BackendsDNS), o.Loadgen)
				return nil
			}
			if listen, err = labcontrol.ListenAddr("--listen", listen); err != nil {
				return usageError{err}
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
	cmd.Flags().StringVar(&listen, "listen", labcontrol.DefaultControllerAddr, "the dashboard's address")
	cmd.Flags().StringVar(&labArg, "lab", "", "the lab file or scenario the processes run (to check drills; default: the playground)")
	cmd.Flags().BoolVar(&check, "check-config", false, "validate the flags, print a summary and exit (0 ok, 2 bad)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "debug logging")
	af.add(cmd, "the processes' admin token, presented to them and required by the dashboard (default: $"+wire.TokenEnv+"; required when --listen is not loopback)")
	return cmd
}

// attachOptions parses lab dashboard's flags.
func attachOptions(lbs, backends, loadgen, labArg string) (livelab.AttachOptions, error) {
	var o livelab.AttachOptions
	var err error
	if lbs != "" {
		if o.LBs, err = labattach.ParseEndpoints("--lb", lbs); err != nil {
			return o, err
		}
	}
	if backends != "" {
		if o.Backends, err = labattach.ParseEndpoints("--backends", backends); err != nil {
			return o, err
		}
	}
	if loadgen != "" {
		if o.Loadgen, err = labcontrol.DialAddr("--loadgen", loadgen); err != nil {
			return o, err
		}
	}
	if labArg != "" {
		if o.Lab, err = loadLab(labArg); err != nil {
			return o, err
		}
	}
	return o, nil
}

// invokedAs is how the user ran lab, for hints they can paste: the first
// argument as typed (bin/lab, ./lab, or lab found on PATH), or go run
// ./cmd/lab when go run built it.
func invokedAs() string {
	arg0 := os.Args[0]
	if strings.Contains(arg0, "go-build") {
		return "go run ./cmd/lab"
	}
	if filepath.IsAbs(arg0) {
		if p, err := exec.LookPath(filepath.Base(arg0)); err == nil && p == arg0 {
			return filepath.Base(arg0)
		}
	}
	return arg0
}

// simHint makes a too-large fleet's hint name what the user gave (a lab
// file's path, not only its lab's name), so that it can be pasted.
func simHint(err error, arg string) error {
	var fe *livelab.FleetError
	if !errors.As(err, &fe) || fe.Arg == arg {
		return err
	}
	was := fe.Error() // the wrapping message holds this text already
	fe.Arg = arg
	return errors.New(strings.Replace(err.Error(), was, fe.Error(), 1))
}
