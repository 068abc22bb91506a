package control

import (
	"net/http"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/scenarios"
)

// upDuration keeps a lab's loadgen sending until the lab is stopped.
const upDuration = "8760h"

// ScenarioLab loads built-in scenario name as the dashboard runs it: its
// first compare setting applied (if it has any) and sending until stopped.
// It returns the setting's name.
func ScenarioLab(name string) (*labfile.Lab, string, error) {
	lab, setting, err := dash.ScenarioSetting(name)
	if err != nil {
		return nil, "", err
	}
	if err := lab.Apply("duration", upDuration); err != nil {
		return nil, "", err
	}
	return lab, setting, nil
}

// handleScenarios is GET /api/scenarios.
func (c *Controller) handleScenarios(w http.ResponseWriter, _ *http.Request) {
	var list []dash.ScenarioInfo
	for _, name := range scenarios.Names() {
		lab, setting, err := ScenarioLab(name)
		if err != nil {
			list = append(list, dash.ScenarioInfo{Name: name, Reason: err.Error()})
			continue
		}
		info := dash.ScenarioInfo{Name: name, Description: lab.Description, Setting: setting,
			Servers: len(lab.ExpandServers()), Live: true}
		if err := c.opts.Admit(lab); err != nil {
			info.Live, info.Reason = false, err.Error()
		}
		list = append(list, info)
	}
	out := map[string]any{"scenarios": list, "available": c.mode == "up"}
	if r := c.Current(); r != nil {
		out["current"] = r.Scenario()
		if f := r.Features(c.mode); !f.Scenarios {
			out["reason"] = f.Reason
		}
	}
	writeJSON(w, 200, out)
}

// handleScenario is POST /api/scenario {"name": "rr-slow"}: stop the
// running lab's processes and start the scenario's, with its script.
func (c *Controller) handleScenario(w http.ResponseWriter, req *http.Request) {
	var body struct {
		Name string `json:"name"`
	}
	if !decodeBody(w, req, &body) {
		return
	}
	if r := c.Current(); c.mode != "up" || c.opts.Switch == nil || (r != nil && r.Attached()) {
		writeJSON(w, 400, map[string]any{"error": "scenario switching is not available here: " + c.unavailable(r), "code": 400})
		return
	}
	lab, setting, err := ScenarioLab(body.Name)
	if err == nil {
		err = c.opts.Admit(lab)
	}
	if err == nil {
		err = assemble.CheckCost(lab, nil, false, c.opts.budget())
	}
	if err != nil {
		writeJSON(w, 400, map[string]any{"error": err.Error(), "code": 400})
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.opts.Switch(lab, body.Name, setting); err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error(), "code": 500})
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true, "scenario": body.Name, "setting": setting, "narration": lab.Narration})
}

// unavailable is why scenario switching is not available on run r (nil:
// none running) in this controller.
func (c *Controller) unavailable(r Run) string {
	if r == nil {
		return "lab " + c.mode + " does not switch scenarios"
	}
	return r.Features(c.mode).Reason
}
