// Package control is the controller of a live lab and its API: it serves
// the dashboard page, publishes a snapshot of the run it shows every 250 ms
// (GET /api/snapshot, /api/stream), answers GET /api/state and /api/sd,
// checks and forwards drills (POST /api/chaos), lists and switches the
// built-in scenarios (GET /api/scenarios, POST /api/scenario), and writes
// the token file lab chaos reads. SendDrill is that API's client. What a
// run is, and how one starts, is internal/lab's: the controller sees it as
// a Run.
package control

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Run is the running lab a controller shows and sends drills to
// (internal/lab's live run).
type Run interface {
	// Snapshot reads the run's processes and returns what the dashboard
	// draws, d holding the bins derived so far.
	Snapshot(ctx context.Context, d *dash.Deriver, mode string) *dash.Snapshot
	// Processes are the run's balancers and backends, and its loadgen.
	Processes() (fleet []*proc.Proc, loadgen *proc.Proc)
	// Log is the run's event log so far.
	Log() []report.LogLine
	// Lab is a copy of the run's lab as drills have left it.
	Lab() *labfile.Lab
	// Scenario is the built-in scenario it runs ("" = a lab file).
	Scenario() string
	// Features says what the dashboard offers on it in this mode.
	Features(mode string) dash.Features
	// Attached: processes someone else started (no add-server).
	Attached() bool
	// Fire applies a drill now, logged as "chaos: ...", and returns its
	// undo (the zero Event for none), scheduled For later.
	Fire(ctx context.Context, ev labfile.Event) (labfile.Event, error)
	// Stop stops the run's processes (those it started).
	Stop()
}

// Options configure a controller.
type Options struct {
	Mode   string      // up | run | attach
	Access wire.Access // who may call it (its token may be "" on a loopback address)
	Log    *zap.Logger
	// Budget is what a lab may cost (zero: assemble.DefaultBudget), checked
	// for a drill that changes settings and for a scenario switched to.
	Budget assemble.Budget
	// Admit refuses a scenario's lab before a switch starts it (too many
	// processes, a proxy not installed).
	Admit func(*labfile.Lab) error
	// AddServer refuses an add-server drill ev on a run of lab (as drills
	// have left it) that would start too many processes (nil: none is).
	AddServer func(lab *labfile.Lab, ev labfile.Event) error
	// Switch replaces the run by built-in scenario name's lab (with its
	// compare setting applied) in lab up; it holds the controller's switch
	// lock. Nil where switching is not available.
	Switch func(lab *labfile.Lab, name, setting string) error
}

// Controller serves the dashboard, the lab's state and a chaos API that
// forwards drills to the processes of its current run. Every 250 ms it
// reads every process's state and publishes a Snapshot.
type Controller struct {
	mode   string // up | run | attach
	opts   Options
	mu     sync.Mutex   // serializes drills and run switches
	run    atomic.Value // runBox: the run shown
	status atomic.Value // string: why there is no run ("starting rr-slow", "stopped: ...")
	hub    *dash.Stream
	srv    *http.Server
	addr   string
	done   chan struct{} // closed when the aggregator has stopped
	// tokenFile is where lab chaos finds the token the controller
	// requires (writeTokenFile; "" = none required, or it could not be
	// written); dropToken removes it when the controller stops.
	tokenFile string
	dropToken func()
}

// runBox holds the run shown (nil: none), so that one type is stored.
type runBox struct{ r Run }

// New serves the API and dashboard on ln and starts the aggregator; both
// stop when ctx ends (then call Close).
func New(ctx context.Context, ln net.Listener, opts Options) *Controller {
	c := &Controller{mode: opts.Mode, opts: opts, hub: dash.NewStream(), addr: ln.Addr().String(), done: make(chan struct{})}
	c.status.Store("starting")
	c.run.Store(runBox{})
	lim := wire.AdminLimits()
	c.srv = &http.Server{Handler: wire.NewGuard(opts.Access, ln.Addr()).HTTP(c.routes()),
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: lim.ReadTimeout, WriteTimeout: lim.WriteTimeout, // the stream extends it per write
		IdleTimeout: lim.IdleTimeout, MaxHeaderBytes: 64 << 10, ErrorLog: wire.HTTPErrorLog(opts.Log),
		BaseContext: func(net.Listener) context.Context { return ctx }} // ends the streams on shutdown
	logf := func(format string, args ...any) { opts.Log.Sugar().Warnf(format, args...) }
	go func() { _ = c.srv.Serve(wire.Listen(ln, lim.MaxConns, logf)) }()
	go c.aggregate(ctx)
	if t := opts.Access.Token; t != "" {
		var err error
		if c.tokenFile, c.dropToken, err = writeTokenFile(c.HostPort(), t); err != nil {
			opts.Log.Warn("cannot write the token file lab chaos reads: give lab chaos the token in LBLAB_TOKEN", zap.Error(err))
		}
	}
	return c
}

// Close stops serving (after ctx has ended) and waits for the aggregator.
func (c *Controller) Close() {
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = c.srv.Shutdown(shut)
	<-c.done
	if c.dropToken != nil {
		c.dropToken()
	}
}

// SetRun makes r the run the controller shows and drills go to (nil:
// none, while a switch starts another).
func (c *Controller) SetRun(r Run) {
	c.run.Store(runBox{r})
	if r != nil {
		c.status.Store("running")
	}
}

// SetStatus says why no run is shown ("starting rr-slow", "stopped: ...").
func (c *Controller) SetStatus(s string) { c.status.Store(s) }

// Current is the run now shown, or nil while none runs.
func (c *Controller) Current() Run { return c.run.Load().(runBox).r }

// StopRun waits for a scenario switch in progress to finish, then stops
// the run shown (lab up's end, once Close has stopped the API).
func (c *Controller) StopRun() {
	c.mu.Lock() // let a scenario switch finish first
	defer c.mu.Unlock()
	if r := c.Current(); r != nil {
		r.Stop()
	}
}

// Addr is the address the controller listens on.
func (c *Controller) Addr() string { return c.addr }

// aggregate reads every process each 250 ms and publishes the snapshot.
func (c *Controller) aggregate(ctx context.Context) {
	defer close(c.done)
	tick := time.NewTicker(report.BinWidth)
	defer tick.Stop()
	var d dash.Deriver
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var snap *dash.Snapshot
		if r := c.Current(); r != nil {
			snap = r.Snapshot(ctx, &d, c.mode)
		} else {
			snap = &dash.Snapshot{Mode: c.mode, Status: c.status.Load().(string), AtUnixMs: time.Now().UnixMilli(), LatencySource: "little"}
		}
		data, err := json.Marshal(snap)
		if err != nil {
			c.opts.Log.Warn("cannot encode a snapshot", zap.Error(err))
			continue
		}
		c.hub.Publish(data)
	}
}

// HostPort is the controller's address as lab up prints it and lab chaos
// dials it: a wildcard host is shown as 127.0.0.1.
func (c *Controller) HostPort() string {
	host, port, err := net.SplitHostPort(c.addr)
	if err != nil {
		return c.addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// DashboardURL is the address to print, with the token when the
// controller requires one (the browser exchanges it for a cookie).
func (c *Controller) DashboardURL() string {
	u := "http://" + c.HostPort() + "/"
	if t := c.opts.Access.Token; t != "" {
		u += "?" + wire.TokenQuery + "=" + t // opened once, it becomes the page's cookie
	}
	return u
}

// DrillHint is a lab chaos command that works as printed: --lab-url when
// the controller is not where lab chaos looks by default, and never the
// token (lab chaos reads it from the controller's token file, or from
// LBLAB_TOKEN when that file could not be written).
func (c *Controller) DrillHint(command string) string {
	hint := command + " chaos"
	if here := c.HostPort(); here != DefaultControllerAddr {
		hint += " --lab-url " + here
	}
	hint += " kill s2"
	if c.opts.Access.Token != "" && c.tokenFile == "" {
		hint = wire.TokenEnv + "=<the token> " + hint
	}
	return hint
}
