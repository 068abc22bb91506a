package lab

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
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
	if err := CheckFleet(lab, opts.MaxServers); err != nil {
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
	c := newController(ctx, "up", ln, opts.Options)
	c.begin(r, lab.Events)
	lastControllerAddr.Store(c.addr)
	c.printWelcome(opts.Out, r, opts.Command)
	<-ctx.Done()
	c.close()
	c.mu.Lock() // let a scenario switch finish first
	defer c.mu.Unlock()
	if r := c.current(); r != nil {
		r.stop()
	}
	return nil
}

// begin shows run r and starts its script clock.
func (c *Controller) begin(r *liveRun, events []labfile.Event) {
	c.setRun(r)
	go r.runScript(events)
	c.watchLoadgen(r)
}

// printWelcome prints where everything is, with hints that work as
// printed: the lab binary as it was run, and the drill (drillHint).
func (c *Controller) printWelcome(w io.Writer, r *liveRun, command string) {
	if w == nil {
		return
	}
	if command == "" {
		command = "lab"
	}
	lab := r.labCopy()
	fmt.Fprintf(w, "dashboard:  %s\n", c.dashboardURL())
	algorithm, lbAddr := lab.Balancers.Algorithm, ""
	if lbs := r.balancers(); len(lbs) > 0 {
		lbAddr = lbs[0].Ready.Addr
	} else if x := r.f.external(); x != nil {
		d, _ := x.kind.Directive(algorithm, &lab.Balancers)
		algorithm += fmt.Sprintf(" through %s (%s)", x.kind.Name, strings.ReplaceAll(d, "\n", "; "))
		lbAddr = x.proc.Ready.Addr
	}
	fmt.Fprintf(w, "lab %s is up: %d servers, %s, %g requests/s from the loadgen\n",
		lab.Name, len(r.backends()), algorithm, lab.Clients.Rate)
	if lbAddr != "" {
		lbURL := "http://" + lbAddr
		fmt.Fprintf(w, "  balancer:   %s        try: curl %s/hello\n", lbURL, lbURL)
		fmt.Fprintf(w, "                                            hey -z 10s -q 20 -c 5 %s/\n", lbURL)
	}
	fmt.Fprintf(w, "  controller: http://%s/api/state    drills: %s (see %s --help)\n", c.addr, c.drillHint(command), command+" chaos")
	fmt.Fprintf(w, "Ctrl-C stops every process.\n")
}

// drillHint is a lab chaos command that works as printed: --lab-url when
// the controller is not where lab chaos looks by default, and never the
// token (lab chaos reads it from the controller's token file, or from
// LBLAB_TOKEN when that file could not be written).
func (c *Controller) drillHint(command string) string {
	hint := command + " chaos"
	if here := c.hostPort(); here != DefaultControllerAddr {
		hint += " --lab-url " + here
	}
	hint += " kill s2"
	if c.opts.Access.Token != "" && c.tokenFile == "" {
		hint = wire.TokenEnv + "=<the token> " + hint
	}
	return hint
}
