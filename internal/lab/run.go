package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/proxies"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
)

// RunOptions configure `lab run`.
type RunOptions struct {
	Options
	Series    bool
	Progress  io.Writer // one line per setting ("" = quiet)
	Dashboard string    // serve the dashboard here while it runs ("" = none)
	// LoadgenArgs are more flags for each setting's loadgen (lab run's
	// --record, --replay, --out, --hdr-log).
	LoadgenArgs []string
	// Inject, when set, runs beside each setting from the start of its
	// traffic until ctx ends (the loadgen is done), and is waited for before
	// the processes are stopped: lab torture --live sends its process faults
	// from it. procs lists the setting's processes as they are now (a
	// restarted one has a new pid).
	Inject func(ctx context.Context, procs func() []Process)
}

// Process is one running child of a live run, as Inject sees it.
type Process struct {
	Role string // backend, lb or loadgen
	Name string // s1, lb1, loadgen, ...
	PID  int
	p    *os.Process
}

// Signal sends sig to the process; once it has exited, it fails rather
// than reach another process that took its pid.
func (p Process) Signal(sig os.Signal) error { return p.p.Signal(sig) }

// processes lists the run's children, balancers first, then the
// backends and the loadgen.
func (r *liveRun) processes() []Process {
	var out []Process
	procs := append(r.f.all(), r.loadgen)
	if x := r.f.external(); x != nil {
		procs = append([]*proc.Proc{x.proc}, procs...)
	}
	for _, p := range procs {
		out = append(out, Process{Role: p.Role, Name: p.Name, PID: p.Process().Pid, p: p.Process()})
	}
	return out
}

// Run runs each setting live, one after another, each on a fresh set of
// processes, and returns the report (mode "live"). The same lab and seed
// send the same requests as `lab sim`. With a Dashboard address it serves
// the dashboard of the setting running; a taken address is warned about and
// the run goes on without it.
func Run(ctx context.Context, lab *labfile.Lab, settings []labfile.Setting, opts RunOptions) (*report.Report, error) {
	if err := CheckRun(lab, settings, opts.MaxProcesses); err != nil {
		return nil, err
	}
	ctx = admin.WithToken(ctx, admin.OrNewToken(opts.Token))
	rep := &report.Report{Mode: "live", Lab: lab.Name, Seed: lab.Seed, DurationS: lab.Duration.Seconds(),
		Narration: lab.Narration, Headline: lab.Report.Headline}
	rep.Through = through(lab, settings)
	dash, stopDash := runDashboard(ctx, opts)
	defer stopDash()
	for i, s := range settings {
		l, err := lab.WithSetting(s)
		if err != nil {
			return nil, fmt.Errorf("setting %q: %w", s.Name, err)
		}
		if opts.Progress != nil {
			through := ""
			if p, ok := proxies.Of(l); ok {
				through = " through " + p.Name
			}
			fmt.Fprintf(opts.Progress, "lab run %s: setting %s (%d of %d)%s, %v of traffic...\n",
				lab.Name, s.Name, i+1, len(settings), through, l.Duration)
		}
		run, err := runOne(ctx, l, s.Name, opts, dash)
		if err != nil {
			return nil, fmt.Errorf("setting %q: %w", s.Name, err)
		}
		rep.Runs = append(rep.Runs, *run)
		if ctx.Err() != nil { // interrupted: report what ran, and for how long
			markInterrupted(rep, lab, settings[i+1:])
			break
		}
	}
	return rep, nil
}

// through is the external proxy every setting runs its balancer tier as
// (report.Report.Through), "" when one runs lblab's lb or they differ.
func through(lab *labfile.Lab, settings []labfile.Setting) string {
	name := ""
	for i, s := range settings {
		l, err := lab.WithSetting(s)
		if err != nil {
			return ""
		}
		p, ok := proxies.Of(l)
		if !ok || i > 0 && p.Name != name {
			return ""
		}
		name = p.Name
	}
	return name
}

// markInterrupted records in rep that the run was stopped early: its
// duration becomes the longest any setting ran, and the settings that never
// started are named.
func markInterrupted(rep *report.Report, lab *labfile.Lab, notRun []labfile.Setting) {
	rep.Interrupted = true
	rep.DurationS = 0
	for _, r := range rep.Runs {
		d := lab.Duration.Seconds()
		if r.Interrupted {
			d = r.DurationS
		}
		rep.DurationS = max(rep.DurationS, d)
	}
	for _, s := range notRun {
		rep.NotRun = append(rep.NotRun, s.Name)
	}
}

// CheckRun refuses, before anything starts, a run whose settings are not
// valid labs or would start more than max processes (see CheckFleet).
func CheckRun(lab *labfile.Lab, settings []labfile.Setting, max int) error {
	for _, s := range settings {
		l, err := lab.WithSetting(s)
		if err == nil {
			err = CheckFleet(l, max)
		}
		if err != nil {
			return fmt.Errorf("setting %q: %w", s.Name, err)
		}
	}
	return nil
}

// runDashboard serves the dashboard for lab run, if asked and possible.
func runDashboard(ctx context.Context, opts RunOptions) (*control.Controller, func()) {
	if opts.Dashboard == "" {
		return nil, func() {}
	}
	ln, err := net.Listen("tcp", opts.Dashboard)
	if err != nil {
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "lab run: warning: no dashboard (%v); running without it\n", err)
		} else {
			opts.Log.Warn("no dashboard: its address is not free; the run goes on without it", zap.String("addr", opts.Dashboard), zap.Error(err))
		}
		return nil, func() {}
	}
	dctx, cancel := context.WithCancel(ctx)
	c := control.New(dctx, ln, controlOptions("run", opts.Options))
	lastControllerAddr.Store(c.Addr())
	if opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "dashboard: %s\n", c.DashboardURL())
	}
	return c, func() { cancel(); c.Close() }
}

// runOne starts the processes of one setting, runs the loadgen and the
// script, gathers the report and stops everything.
func runOne(ctx context.Context, lab *labfile.Lab, name string, opts RunOptions, dash *control.Controller) (*report.Run, error) {
	r, err := launch(ctx, "run", lab, opts.Options, opts.Series, opts.LoadgenArgs...)
	if err != nil {
		return nil, err
	}
	defer r.Stop()
	r.scenario, r.setting = scenarioOf(lab), name
	if dash != nil {
		dash.SetRun(r)
	}
	lg := r.loadgen
	scriptDone := make(chan struct{})
	go func() { r.runScript(lab.Events); close(scriptDone) }()
	progressDone := make(chan struct{})
	go func() { gather.Progress(r.ctx, opts.Progress, lg, lab.Duration); close(progressDone) }()
	injectDone := make(chan struct{})
	go func() {
		if opts.Inject != nil {
			opts.Inject(r.ctx, r.processes)
		}
		close(injectDone)
	}()
	if err := lg.Wait(ctx); ctx.Err() != nil {
		_ = lg.Signal(syscall.SIGINT) // loadgen reports what ran
		<-lg.Done()
	} else if err != nil {
		r.cancel()
		<-injectDone
		return nil, fmt.Errorf("loadgen failed: %v (its log is in the process log)", err)
	}
	r.cancel()
	<-scriptDone
	<-progressDone
	<-injectDone
	run, ran, err := parseLoadgenReport(lg.Output())
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil && ran < lab.Duration.Seconds() { // the loadgen stopped its arrivals at the interrupt
		run.Interrupted, run.DurationS = true, ran
	}
	// every process's state at the end, read once for each figure below
	states := gather.ReadStates(ctxAlive(ctx), r.f.servers(), r.f.balancers(), opts.Log)
	run.Servers = gather.ServerFigures(states, lab.Network.Connections(), r.sc.events)
	r.f.proxyFigures(ctxAlive(ctx), r.sc.events)
	run.Name, run.Log = name, append(r.sc.events.Snapshot(), run.Log...)
	// the dashboard's log gets the recovery verdicts once the loadgen's
	// series is in (the report keeps them in their own field)
	r.sc.events.AddLines(verdict.RecoveryLines(lab, run.Series, true))
	if run.Algorithm == "" {
		run.Algorithm = lab.Balancers.Algorithm
	}
	gather.BalancerConnections(states, run)
	if assemble.Probes(lab) && !assemble.ClientSide(lab) { // lblab's lb probes (no external proxy runs a probing algorithm)
		run.Probes = gather.Probes(states, run.Requests)
	}
	if assemble.Announces(lab) && r.f.external() == nil { // lblab's backends announce to lblab's lbs
		run.Announcements = gather.Announcements(states, run.Requests)
	}
	return run, nil
}

// parseLoadgenReport reads the loadgen's JSON report: its only run, and how
// many seconds of arrivals it ran.
func parseLoadgenReport(out string) (*report.Run, float64, error) {
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		return nil, 0, fmt.Errorf("cannot read the loadgen's report: %v (output: %.200q)", err, out)
	}
	if len(rep.Runs) != 1 {
		return nil, 0, fmt.Errorf("the loadgen's report has %d runs, want 1", len(rep.Runs))
	}
	return &rep.Runs[0], rep.DurationS, nil
}
