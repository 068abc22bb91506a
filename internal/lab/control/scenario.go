package control

import (
	"errors"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
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

// Scenarios lists the built-in scenarios (dash.Clock: GET
// /api/scenarios), each live unless Options.Admit refuses its lab.
func (c *Controller) Scenarios(dash.Request) (dash.ScenarioList, error) {
	out := dash.ScenarioList{Scenarios: dash.ListScenarios(ScenarioLab, c.opts.Admit), Available: c.mode == "up"}
	if r := c.Current(); r != nil {
		out.Current = r.Scenario()
		if f := r.Features(c.mode); !f.Scenarios {
			out.Reason = f.Reason
		}
	}
	return out, nil
}

// Scenario stops the running lab's processes and starts built-in scenario
// pick.Name's, with its script (dash.Clock: POST /api/scenario).
func (c *Controller) Scenario(_ dash.Request, pick dash.ScenarioPick) (dash.Started, error) {
	if r := c.Current(); c.mode != "up" || c.opts.Switch == nil || (r != nil && r.Attached()) {
		return dash.Started{}, errors.New("scenario switching is not available here: " + c.unavailable(r))
	}
	lab, setting, err := ScenarioLab(pick.Name)
	if err == nil && c.opts.Admit != nil {
		err = c.opts.Admit(lab)
	}
	if err == nil {
		err = assemble.CheckCost(lab, nil, false, c.opts.budget())
	}
	if err != nil {
		return dash.Started{}, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.opts.Switch(lab, pick.Name, setting); err != nil {
		return dash.Started{}, dash.Fail(500, err)
	}
	return dash.Started{OK: true, Scenario: pick.Name, Setting: setting, Narration: lab.Narration}, nil
}

// unavailable is why scenario switching is not available on run r (nil:
// none running) in this controller.
func (c *Controller) unavailable(r Run) string {
	if r == nil {
		return "lab " + c.mode + " does not switch scenarios"
	}
	return r.Features(c.mode).Reason
}
