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
