package lab

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/lab/webui"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Controller serves the dashboard, the lab's state and a chaos API that
// forwards drills to the processes of its current run. Every 250 ms it
// reads every process's state and publishes a Snapshot.
type Controller struct {
	mode   string // up | run | attach
	opts   Options
	ctx    context.Context // the controller's lifetime (runs started by a switch live in it)
	mu     sync.Mutex      // serializes drills and run switches
	run    atomic.Pointer[liveRun]
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

// newController serves the API and dashboard on ln and starts the
// aggregator; both stop when ctx ends (then call close).
func newController(ctx context.Context, mode string, ln net.Listener, opts Options) *Controller {
	c := &Controller{mode: mode, opts: opts, ctx: ctx, hub: dash.NewStream(), addr: ln.Addr().String(), done: make(chan struct{})}
	c.status.Store("starting")
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
		if c.tokenFile, c.dropToken, err = writeTokenFile(c.hostPort(), t); err != nil {
			opts.Log.Warn("cannot write the token file lab chaos reads: give lab chaos the token in LBLAB_TOKEN", zap.Error(err))
		}
	}
	return c
}

// close stops serving (after ctx has ended) and waits for the aggregator.
func (c *Controller) close() {
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = c.srv.Shutdown(shut)
	<-c.done
	if c.dropToken != nil {
		c.dropToken()
	}
}

func (c *Controller) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]bool{"ok": true}) })
	mux.HandleFunc("GET /api/state", c.handleState)
	mux.HandleFunc("POST /api/chaos", c.handleChaos)
	mux.HandleFunc("GET /api/sd", c.handleSD)
	mux.HandleFunc("GET /api/snapshot", c.handleSnapshot)
	mux.HandleFunc("GET /api/stream", c.handleStream)
	mux.HandleFunc("GET /api/scenarios", c.handleScenarios)
	mux.HandleFunc("POST /api/scenario", c.handleScenario)
	mux.Handle("GET /", webui.Handler())
	return mux
}

// setRun makes r the run the controller shows and drills go to.
func (c *Controller) setRun(r *liveRun) {
	c.run.Store(r)
	if r != nil {
		c.status.Store("running")
	}
}

// current is the run now shown, or nil while none runs.
func (c *Controller) current() *liveRun { return c.run.Load() }

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
		if r := c.current(); r != nil {
			cur := gather.Read(ctx, r.balancers(), r.backends(), r.loadgen)
			d.Add(r.id, r.started, cur)
			snap = snapshot(r, &d, cur, c.mode)
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

// watchLoadgen logs a loadgen that exits while its run is shown (a lab run
// setting ending is normal and not logged).
func (c *Controller) watchLoadgen(r *liveRun) {
	go func() {
		select {
		case <-r.ctx.Done():
		case <-r.loadgen.Done():
			if r.ctx.Err() == nil && c.mode != "run" {
				c.opts.Log.Warn("the loadgen stopped", zap.Error(r.loadgen.Err()))
				r.sc.events.Add(time.Now(), "the loadgen stopped: no more traffic")
			}
		}
	}()
}

// hostPort is the controller's address as lab up prints it and lab chaos
// dials it: a wildcard host is shown as 127.0.0.1.
func (c *Controller) hostPort() string {
	host, port, err := net.SplitHostPort(c.addr)
	if err != nil {
		return c.addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// dashboardURL is the address to print, with the token when the
// controller requires one (the browser exchanges it for a cookie).
func (c *Controller) dashboardURL() string {
	u := "http://" + c.hostPort() + "/"
	if t := c.opts.Access.Token; t != "" {
		u += "?" + wire.TokenQuery + "=" + t // opened once, it becomes the page's cookie
	}
	return u
}
