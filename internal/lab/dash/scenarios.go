package dash

import (
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/scenarios"
)

// ScenarioInfo is one entry of GET /api/scenarios.
type ScenarioInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Setting     string `json:"setting,omitempty"` // the compare setting it starts with
	Servers     int    `json:"servers"`
	Live        bool   `json:"live"`
	Reason      string `json:"reason,omitempty"` // why it cannot run live here
}

// ScenarioSetting loads built-in scenario name with its first compare
// setting applied (if it has any), for its own duration; it returns the
// setting's name.
func ScenarioSetting(name string) (*labfile.Lab, string, error) {
	lab, err := scenarios.Lab(name)
	if err != nil {
		return nil, "", err
	}
	setting := ""
	if len(lab.Compare) > 0 {
		s := lab.Compare[0]
		if lab, err = lab.WithSetting(s); err != nil {
			return nil, "", err
		}
		setting = s.Name
	}
	return lab, setting, nil
}

// ListScenarios is every built-in scenario as GET /api/scenarios lists it:
// load gives its lab and the compare setting it starts with (as the clock
// runs it), and it is live unless admit refuses that lab (nil: none is).
func ListScenarios(load func(name string) (*labfile.Lab, string, error), admit func(*labfile.Lab) error) []ScenarioInfo {
	list := []ScenarioInfo{}
	for _, name := range scenarios.Names() {
		lab, setting, err := load(name)
		if err != nil {
			list = append(list, ScenarioInfo{Name: name, Reason: err.Error()})
			continue
		}
		info := ScenarioInfo{Name: name, Description: lab.Description, Setting: setting,
			Servers: len(lab.ExpandServers()), Live: true}
		if admit != nil {
			if err := admit(lab); err != nil {
				info.Live, info.Reason = false, err.Error()
			}
		}
		list = append(list, info)
	}
	return list
}
