package lab

import (
	"net/http"

	"github.com/lblab/lblab/internal/lab/dash"
)

// The live dashboard: the snapshot of a live run (built by internal/lab/dash,
// as lab watch's is) and its stream.

// snapshot builds what the dashboard draws from the newest reading of run r
// and the bins derived so far.
func snapshot(r *liveRun, d *dash.Deriver, cur *dash.Reading, mode string) *dash.Snapshot {
	return dash.LiveSnapshot(dash.LiveRun{Lab: r.labCopy(), Scenario: r.scenario, Setting: r.setting,
		Started: r.started, Features: features(mode, r), First: &r.first, Log: r.sc.events.Snapshot()}, d, cur, mode)
}

func features(mode string, r *liveRun) dash.Features {
	switch {
	case r.attached:
		return dash.Features{Reason: "attached to processes lab dashboard did not start: it cannot start servers or switch labs"}
	case mode == "run":
		return dash.Features{AddServer: true, Reason: "lab run runs a fixed list of settings: use lab up to switch scenarios"}
	}
	return dash.Features{AddServer: true, Scenarios: true}
}

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
