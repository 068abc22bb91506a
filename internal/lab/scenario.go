package lab

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/scenarios"
)

// DefaultMaxServers bounds the fleet a live run starts unless told
// otherwise: each server is a process (balls-bins has 1000; it is for lab
// sim), and a few hundred Go processes starting at once swamp a laptop.
const DefaultMaxServers = 40

// CheckFleet refuses a live run of a lab with more than max servers
// (0 = DefaultMaxServers), counting those its script adds, naming the ways
// out.
func CheckFleet(lab *labfile.Lab, max int) error {
	max = maxServers(max)
	n := len(lab.ExpandServers())
	for _, ev := range lab.Events {
		if ev.Action == "add-server" {
			n++
		}
	}
	if n > max {
		return &FleetError{Lab: lab.Name, Servers: n, Max: max, Arg: lab.Name}
	}
	return CheckExternal(lab)
}

// FleetError is a lab too large for a live run. Arg is what to give lab
// sim instead: the lab's name (a built-in scenario), or the file the
// command line named, which the caller sets.
type FleetError struct {
	Lab          string
	Servers, Max int
	Arg          string
}

func (e *FleetError) Error() string {
	return fmt.Sprintf("%s has %d servers with those its script adds, too many processes for a live run (at most %d; --max-servers raises it): try lab sim %s",
		e.Lab, e.Servers, e.Max, e.Arg)
}

// maxServers is the --max-servers bound in force (0 = DefaultMaxServers).
func maxServers(max int) int {
	if max <= 0 {
		return DefaultMaxServers
	}
	return max
}

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

// scenarioOf is the built-in scenario a lab is ("" for a lab file of
// another name).
func scenarioOf(lab *labfile.Lab) string {
	if slices.Contains(scenarios.Names(), lab.Name) {
		return lab.Name
	}
	return ""
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
		if err := CheckFleet(lab, c.opts.MaxServers); err != nil {
			info.Live, info.Reason = false, err.Error()
		}
		list = append(list, info)
	}
	out := map[string]any{"scenarios": list, "available": c.mode == "up"}
	if r := c.current(); r != nil {
		out["current"] = r.scenario
		if f := features(c.mode, r); !f.Scenarios {
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
	if r := c.current(); c.mode != "up" || (r != nil && r.attached) {
		writeJSON(w, 400, map[string]any{"error": "scenario switching is not available here: " + features(c.mode, r).Reason, "code": 400})
		return
	}
	lab, setting, err := ScenarioLab(body.Name)
	if err == nil {
		err = CheckFleet(lab, c.opts.MaxServers)
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
	if err := c.switchTo(lab, body.Name, setting); err != nil {
		writeJSON(w, 500, map[string]any{"error": err.Error(), "code": 500})
		return
	}
	writeJSON(w, 200, map[string]any{"ok": true, "scenario": body.Name, "setting": setting, "narration": lab.Narration})
}

// switchTo replaces the current run with one of lab; if that cannot start
// it tries to bring the previous lab back. Caller holds mu.
func (c *Controller) switchTo(lab *labfile.Lab, name, setting string) error {
	old := c.current()
	c.status.Store("starting " + name)
	c.run.Store(nil)
	var prev *labfile.Lab
	if old != nil {
		prev = old.labCopy()
		old.kill()
	}
	r, err := launch(c.ctx, c.mode, lab, c.opts, false)
	if err != nil {
		c.opts.Log.Warn("cannot start the scenario", zap.String("scenario", name), zap.Error(err))
		if prev != nil {
			if back, err2 := launch(c.ctx, c.mode, prev, c.opts, false); err2 == nil {
				back.scenario, back.setting = old.scenario, old.setting
				c.begin(back, nil)
			}
		}
		if c.current() == nil {
			c.status.Store("stopped: " + err.Error())
		}
		return fmt.Errorf("cannot start %s: %w", name, err)
	}
	r.scenario, r.setting = name, setting
	text := "scenario " + name
	if setting != "" {
		text += " (setting " + setting + ")"
	}
	r.sc.events.Add(time.Now(), text+" started")
	c.begin(r, lab.Events)
	return nil
}
