package lab

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"sync/atomic"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/proxies"
	"github.com/lblab/lblab/scenarios"
	"go.uber.org/zap"
)

// UpOptions configure `lab up`.
type UpOptions struct {
	Options
	Listen string    // the controller's address (dashboard, API), e.g. 127.0.0.1:8000
	Out    io.Writer // where the URLs are printed
	// Command is how the user ran lab (bin/lab, lab, go run ./cmd/lab),
	// for the hints printed at start ("" = lab).
	Command string
}

// lastControllerAddr is the address of the last controller started (tests
// start one on port 0 and read it here).
var lastControllerAddr atomic.Value

// Up starts the lab's processes and a loadgen running until ctx ends, serves
// the dashboard and the controller API, and stops everything when ctx is
// done. The dashboard may switch to another scenario meanwhile.
func Up(ctx context.Context, lab *labfile.Lab, opts UpOptions) error {
	if err := CheckFleet(lab, opts.MaxProcesses); err != nil {
		return err
	}
	ctx = admin.WithToken(ctx, admin.OrNewToken(opts.Token))
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("controller address %s: %w", opts.Listen, err)
	}
	r, err := launch(ctx, "up", lab, opts.Options, false)
	if err != nil {
		ln.Close()
		return err
	}
	r.scenario = scenarioOf(lab)
	var c *control.Controller
	copts := controlOptions("up", opts.Options)
	copts.Switch = func(lab *labfile.Lab, name, setting string) error {
		return switchTo(ctx, c, opts.Options, lab, name, setting)
	}
	c = control.New(ctx, ln, copts)
	begin(c, r, lab.Events)
	lastControllerAddr.Store(c.Addr())
	printWelcome(c, opts.Out, r, opts.Command)
	<-ctx.Done()
	c.Close()
	c.StopRun()
	return nil
}

// controlOptions are the controller's options for a lab of opts in mode.
func controlOptions(mode string, opts Options) control.Options {
	return control.Options{Mode: mode, Access: opts.Access, Log: opts.Log, Budget: opts.Budget,
		Admit:     func(lab *labfile.Lab) error { return CheckFleet(lab, opts.MaxProcesses) },
		AddServer: func(lab *labfile.Lab, ev labfile.Event) error { return checkAddServer(lab, ev, opts.MaxProcesses) }}
}

// begin shows run r on c and starts its script clock.
func begin(c *control.Controller, r *liveRun, events []labfile.Event) {
	c.SetRun(r)
	go r.runScript(events)
	r.watchLoadgen()
}

// watchLoadgen logs a loadgen of lab up that exits while its run is shown
// (lab run does not watch: a setting ending is normal).
func (r *liveRun) watchLoadgen() {
	go func() {
		select {
		case <-r.ctx.Done():
		case <-r.loadgen.Done():
			if r.ctx.Err() == nil {
				r.f.opts.Log.Warn("the loadgen stopped", zap.Error(r.loadgen.Err()))
				r.sc.events.Add(time.Now(), "the loadgen stopped: no more traffic")
			}
		}
	}()
}

// switchTo replaces c's current run with one of lab (lab up's scenario
// picker, control.Options.Switch); if that cannot start it tries to bring
// the previous lab back. The runs live in ctx, the controller's. The
// caller holds the controller's switch lock.
func switchTo(ctx context.Context, c *control.Controller, opts Options, lab *labfile.Lab, name, setting string) error {
	old, _ := c.Current().(*liveRun)
	c.SetStatus("starting " + name)
	c.SetRun(nil)
	var prev *labfile.Lab
	if old != nil {
		prev = old.Lab()
		old.kill()
	}
	r, err := launch(ctx, "up", lab, opts, false)
	if err != nil {
		opts.Log.Warn("cannot start the scenario", zap.String("scenario", name), zap.Error(err))
		if prev != nil {
			if back, err2 := launch(ctx, "up", prev, opts, false); err2 == nil {
				back.scenario, back.setting = old.scenario, old.setting
				begin(c, back, nil)
			}
		}
		if c.Current() == nil {
			c.SetStatus("stopped: " + err.Error())
		}
		return fmt.Errorf("cannot start %s: %w", name, err)
	}
	r.scenario, r.setting = name, setting
	text := "scenario " + name
	if setting != "" {
		text += " (setting " + setting + ")"
	}
	r.sc.events.Add(time.Now(), text+" started")
	begin(c, r, lab.Events)
	return nil
}

// scenarioOf is the built-in scenario a lab is ("" for a lab file of
// another name).
func scenarioOf(lab *labfile.Lab) string {
	if slices.Contains(scenarios.Names(), lab.Name) {
		return lab.Name
	}
	return ""
}

// throughProxy is the welcome's algorithm behind an external proxy:
// "round-robin through nginx (its default)", "p2c through HAProxy (balance
// random(2))", or for a proxy of the user's own, whose algorithm is not
// lab's, "envoy, balancing as its configuration (balancers.command) says".
func throughProxy(p proxies.Proxy, algorithm string, b *labfile.Balancers) string {
	if p.Kind == proxies.KindCommand {
		return p.Name + ", balancing as its configuration (balancers.command) says"
	}
	return fmt.Sprintf("%s through %s (%s)", algorithm, p.Name, proxyRuns(p, algorithm, b))
}

// printWelcome prints where everything is, with hints that work as
// printed: the lab binary as it was run, and the drill (drillHint).
func printWelcome(c *control.Controller, w io.Writer, r *liveRun, command string) {
	if w == nil {
		return
	}
	if command == "" {
		command = "lab"
	}
	lab := r.Lab()
	fmt.Fprintf(w, "dashboard:  %s\n", c.DashboardURL())
	algorithm, lbAddr := lab.Balancers.Algorithm, ""
	if lbs := r.balancers(); len(lbs) > 0 {
		lbAddr = lbs[0].Ready.Addr
	} else if x := r.f.external(); x != nil {
		algorithm = throughProxy(x.kind, algorithm, &lab.Balancers)
		lbAddr = x.proc.Ready.Addr
	}
	fmt.Fprintf(w, "lab %s is up: %d servers, %s, %g requests/s from the loadgen\n",
		lab.Name, len(r.backends()), algorithm, lab.Clients.Rate)
	if lbAddr != "" {
		lbURL := "http://" + lbAddr
		fmt.Fprintf(w, "  balancer:   %s        try: curl %s/hello\n", lbURL, lbURL)
		fmt.Fprintf(w, "                                            hey -z 10s -q 20 -c 5 %s/\n", lbURL)
	}
	fmt.Fprintf(w, "  controller: http://%s/api/state    drills: %s (see %s --help)\n", c.Addr(), c.DrillHint(command), command+" chaos")
	fmt.Fprintf(w, "Ctrl-C stops every process.\n")
}
