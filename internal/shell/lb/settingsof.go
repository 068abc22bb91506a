package lb

import "github.com/lblab/lblab/internal/labfile"

// SettingsOf is the settings part of GET /admin/state for a balancer of
// lab: what the virtual dashboard shows for the simulator's balancers, in
// the format the live ones report.
func SettingsOf(lab *labfile.Lab) Settings { return settingsOf(lab) }
