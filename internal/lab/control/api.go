package control

import (
	"encoding/json"
	"errors"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// State is GET /api/state: every process's own state, and the event log.
type State struct {
	Lab       string            `json:"lab"`
	Balancers []json.RawMessage `json:"balancers"`
	Servers   []json.RawMessage `json:"servers"`
	Loadgen   json.RawMessage   `json:"loadgen"`
	Log       []report.LogLine  `json:"log"`
}

// running is the run shown, or a 503 while no lab runs (a switch in
// progress).
func (c *Controller) running() (Run, error) {
	r := c.Current()
	if r == nil {
		return nil, dash.Failf(503, "no lab is running: %s", c.status.Load().(string))
	}
	return r, nil
}

// state is GET /api/state.
func (c *Controller) state(req dash.Request) (State, error) {
	run, err := c.running()
	if err != nil {
		return State{}, err
	}
	ctx := req.Context()
	procs, loadgen := run.Processes()
	st := State{Lab: run.Lab().Name}
	for _, p := range procs {
		var raw json.RawMessage
		if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &raw); err != nil {
			raw, _ = json.Marshal(map[string]string{"name": p.Name, "error": err.Error()})
		}
		if p.Role == "lb" {
			st.Balancers = append(st.Balancers, raw)
		} else {
			st.Servers = append(st.Servers, raw)
		}
	}
	_ = admin.Call(ctx, loadgen.Ready.Admin, "GET", "/admin/state", nil, &st.Loadgen)
	st.Log = run.Log()
	return st, nil
}

// Snapshots is the snapshots the aggregator publishes (dash.Clock: GET
// /api/snapshot and /api/stream, one snapshot per 250 ms reading).
func (c *Controller) Snapshots() *dash.Stream { return c.hub }

// Chaos checks a drill like a script event of the lab, then applies it
// (dash.Clock: POST /api/chaos).
func (c *Controller) Chaos(req dash.Request, ev labfile.Event) (dash.Applied, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	run, err := c.running()
	if err != nil {
		return dash.Applied{}, err
	}
	if ev.Action == labfile.ActionAddServer && run.Attached() {
		return dash.Applied{}, errors.New("add-server is not available in attach mode: lab dashboard did not start these processes, so it cannot start a server (start one yourself and POST /admin/backends to each lb)")
	}
	err = dash.ValidateDrill(run.Lab(), &ev)
	if err == nil {
		err = assemble.CheckDrillCost(run.Lab(), nil, ev, false, c.opts.budget()) // run.Lab is a copy
	}
	if err == nil && ev.Action == labfile.ActionAddServer && c.opts.AddServer != nil {
		err = c.opts.AddServer(run.Lab(), ev)
	}
	if err != nil {
		return dash.Applied{}, err
	}
	undo, err := run.Fire(req.Context(), ev)
	if err != nil {
		return dash.Applied{}, dash.Fail(502, err)
	}
	out := dash.Applied{OK: true, Applied: ev.String()}
	if ev.For > 0 {
		out.Undo, out.UndoInS = undo.String(), ev.For.Seconds()
	}
	return out, nil
}
