package control

import (
	"encoding/json"
	"net/http"

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

// noRun answers 503 while no lab runs (a switch in progress); it reports
// whether it did.
func (c *Controller) noRun(w http.ResponseWriter) (Run, bool) {
	r := c.Current()
	if r == nil {
		writeJSON(w, 503, map[string]any{"error": "no lab is running: " + c.status.Load().(string), "code": 503})
		return nil, true
	}
	return r, false
}

func (c *Controller) handleState(w http.ResponseWriter, req *http.Request) {
	run, none := c.noRun(w)
	if none {
		return
	}
	procs, loadgen := run.Processes()
	st := State{Lab: run.Lab().Name}
	for _, p := range procs {
		var raw json.RawMessage
		if err := admin.Call(req.Context(), p.Ready.Admin, "GET", "/admin/state", nil, &raw); err != nil {
			raw, _ = json.Marshal(map[string]string{"name": p.Name, "error": err.Error()})
		}
		if p.Role == "lb" {
			st.Balancers = append(st.Balancers, raw)
		} else {
			st.Servers = append(st.Servers, raw)
		}
	}
	_ = admin.Call(req.Context(), loadgen.Ready.Admin, "GET", "/admin/state", nil, &st.Loadgen)
	st.Log = run.Log()
	writeJSON(w, 200, st)
}

// handleChaos validates a drill like a script event of the lab, then applies it.
func (c *Controller) handleChaos(w http.ResponseWriter, req *http.Request) {
	var ev labfile.Event
	if !decodeBody(w, req, &ev) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	run, none := c.noRun(w)
	if none {
		return
	}
	if ev.Action == labfile.ActionAddServer && run.Attached() {
		writeJSON(w, 400, map[string]any{"error": "add-server is not available in attach mode: lab dashboard did not start these processes, so it cannot start a server (start one yourself and POST /admin/backends to each lb)", "code": 400})
		return
	}
	err := validate(run.Lab(), &ev)
	if err == nil {
		err = assemble.CheckDrillCost(run.Lab(), nil, ev, false, c.opts.budget()) // run.Lab is a copy
	}
	if err != nil {
		writeJSON(w, 400, map[string]any{"error": err.Error(), "code": 400})
		return
	}
	if ev.Action == labfile.ActionAddServer && c.opts.AddServer != nil {
		if err := c.opts.AddServer(run.Lab(), ev); err != nil {
			writeJSON(w, 400, map[string]any{"error": err.Error(), "code": 400})
			return
		}
	}
	undo, err := run.Fire(req.Context(), ev)
	if err != nil {
		writeJSON(w, 502, map[string]any{"error": err.Error(), "code": 502})
		return
	}
	out := map[string]any{"ok": true, "applied": ev.String()}
	if ev.For > 0 {
		out["undo"], out["undo_in_s"] = undo.String(), ev.For.Seconds()
	}
	writeJSON(w, 200, out)
}

// decodeBody is dash.DecodeBody: the controller's handlers read a body
// as lab watch's do.
func decodeBody(w http.ResponseWriter, req *http.Request, v any) bool {
	return dash.DecodeBody(w, req, v)
}

// validate is dash.ValidateDrill: a drill checked as lab watch checks it.
func validate(lab *labfile.Lab, ev *labfile.Event) error { return dash.ValidateDrill(lab, ev) }

// writeJSON is dash.WriteJSON.
func writeJSON(w http.ResponseWriter, code int, v any) { dash.WriteJSON(w, code, v) }

// handleStream is GET /api/stream: server-sent events, one snapshot per
// 250 ms reading, until the client leaves or the controller stops.
func (c *Controller) handleStream(w http.ResponseWriter, r *http.Request) { c.hub.ServeHTTP(w, r) }

// handleSnapshot is GET /api/snapshot: the newest snapshot.
func (c *Controller) handleSnapshot(w http.ResponseWriter, _ *http.Request) {
	data := c.hub.Latest()
	if data == nil {
		writeJSON(w, 503, map[string]any{"error": "no reading yet: try again in a moment", "code": 503})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(data)
}
