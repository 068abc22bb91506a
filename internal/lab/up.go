package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// UpOptions configure `lab up`.
type UpOptions struct {
	Options
	Listen string    // the controller's address (chaos API, state), e.g. 127.0.0.1:8000
	Out    io.Writer // where the URLs are printed
}

// lastControllerAddr is the address of the last controller started (tests
// start one on port 0 and read it here).
var lastControllerAddr atomic.Value

// Controller is the running lab of `lab up`: it serves the lab's state and
// a chaos API that forwards drills to the processes.
type Controller struct {
	lab     *labfile.Lab
	f       *fleet
	loadgen *proc
	sc      *script
	mu      sync.Mutex // serializes drills and the lab copy
	srv     *http.Server
	addr    string
}

// Up starts the lab's processes and a loadgen running until ctx ends, serves
// the controller API, and stops everything when ctx is done.
func Up(ctx context.Context, lab *labfile.Lab, opts UpOptions) error {
	ln, err := net.Listen("tcp", opts.Listen)
	if err != nil {
		return fmt.Errorf("controller address %s: %w", opts.Listen, err)
	}
	f, err := startFleet(ctx, lab, opts.Options)
	if err != nil {
		ln.Close()
		return err
	}
	defer f.stop()
	args := append([]string{"--lab", f.labPath, "--admin", "127.0.0.1:0", "--json"}, f.loadgenArgs()...)
	lg, err := start(ctx, opts.Launch, "loadgen", "loadgen", args, opts.Logs, opts.Log)
	if err != nil {
		ln.Close()
		return err
	}
	defer lg.stop()
	c := &Controller{lab: lab.Clone(), f: f, loadgen: lg, addr: ln.Addr().String(), sc: newScript(f, lg, opts.Log)}
	c.sc.followBalancers(ctx)
	c.srv = &http.Server{Handler: c.routes(), ReadHeaderTimeout: 5 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() { _ = c.srv.Serve(ln) }()
	lastControllerAddr.Store(c.addr)
	c.printWelcome(opts.Out)
	go c.sc.run(ctx, lab.Events)
	select {
	case <-ctx.Done():
	case <-lg.done:
		opts.Log.Warn("the loadgen stopped", zap.Error(lg.err))
		<-ctx.Done()
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return c.srv.Shutdown(shut)
}

func (c *Controller) printWelcome(w io.Writer) {
	if w == nil {
		return
	}
	lbURL := ""
	if len(c.f.lbs) > 0 {
		lbURL = "http://" + c.f.lbs[0].ready.Addr
	}
	fmt.Fprintf(w, "lab %s is up: %d servers, %s, %g requests/s from the loadgen\n",
		c.lab.Name, len(c.f.backends), c.lab.Balancers.Algorithm, c.lab.Clients.Rate)
	if lbURL != "" {
		fmt.Fprintf(w, "  balancer:   %s        try: curl %s/hello\n", lbURL, lbURL)
		fmt.Fprintf(w, "                                            hey -z 10s -q 20 -c 5 %s/\n", lbURL)
	}
	fmt.Fprintf(w, "  controller: http://%s/api/state    drills: lab chaos kill s2 (see lab chaos --help)\n", c.addr)
	fmt.Fprintf(w, "Ctrl-C stops every process.\n")
}

func (c *Controller) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { writeJSON(w, 200, map[string]bool{"ok": true}) })
	mux.HandleFunc("GET /api/state", c.handleState)
	mux.HandleFunc("POST /api/chaos", c.handleChaos)
	mux.HandleFunc("GET /api/sd", c.handleSD)
	return mux
}

// State is GET /api/state: every process's own state, and the event log.
type State struct {
	Lab       string            `json:"lab"`
	Balancers []json.RawMessage `json:"balancers"`
	Servers   []json.RawMessage `json:"servers"`
	Loadgen   json.RawMessage   `json:"loadgen"`
	Log       []report.LogLine  `json:"log"`
}

func (c *Controller) handleState(w http.ResponseWriter, r *http.Request) {
	st := State{Lab: c.lab.Name}
	for _, p := range c.f.all() {
		var raw json.RawMessage
		if err := call(r.Context(), p.ready.Admin, "GET", "/admin/state", nil, &raw); err != nil {
			raw, _ = json.Marshal(map[string]string{"name": p.name, "error": err.Error()})
		}
		if p.role == "lb" {
			st.Balancers = append(st.Balancers, raw)
		} else {
			st.Servers = append(st.Servers, raw)
		}
	}
	_ = call(r.Context(), c.loadgen.ready.Admin, "GET", "/admin/state", nil, &st.Loadgen)
	st.Log = c.sc.events.snapshot()
	writeJSON(w, 200, st)
}

// handleChaos validates a drill like a script event of the lab, then applies it.
func (c *Controller) handleChaos(w http.ResponseWriter, r *http.Request) {
	var ev labfile.Event
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		writeJSON(w, 400, map[string]any{"error": "bad JSON body: " + err.Error(), "code": 400})
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.validate(&ev); err != nil {
		writeJSON(w, 400, map[string]any{"error": err.Error(), "code": 400})
		return
	}
	err := c.sc.apply(r.Context(), ev)
	text := "chaos: " + describe(ev)
	if err != nil {
		text += " failed: " + err.Error()
	}
	c.sc.events.add(time.Now(), text)
	if err != nil {
		writeJSON(w, 502, map[string]any{"error": err.Error(), "code": 502})
		return
	}
	if ev.Action == "add-server" {
		c.lab.Events = append(c.lab.Events, ev) // later drills may target it
	}
	writeJSON(w, 200, map[string]any{"ok": true, "applied": describe(ev)})
}

// validate checks a drill as the lab file would check it as a script event.
func (c *Controller) validate(ev *labfile.Event) error {
	probe := c.lab.Clone()
	probe.Compare = nil
	for i := range probe.Events {
		probe.Events[i].At = 0
	}
	ev.At = 0
	probe.Events = append(probe.Events, *ev)
	if err := probe.Validate(); err != nil {
		msg := err.Error()
		prefix := fmt.Sprintf("events[%d].", len(probe.Events)-1)
		if i := strings.Index(msg, prefix); i >= 0 {
			msg = msg[i+len(prefix):]
		}
		return errors.New(msg)
	}
	*ev = probe.Events[len(probe.Events)-1] // add-server gets its generated name
	return nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
