package lab

import (
	"github.com/lblab/lblab/internal/lab/dash"
)

// The live dashboard: the snapshot of a live run (built by internal/lab/dash,
// as lab watch's is), which internal/lab/control streams.

// snapshot builds what the dashboard draws from the newest reading of run r
// and the bins derived so far.
func snapshot(r *liveRun, d *dash.Deriver, cur *dash.Reading, mode string) *dash.Snapshot {
	return dash.LiveSnapshot(dash.LiveRun{Lab: r.Lab(), Scenario: r.scenario, Setting: r.setting,
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
