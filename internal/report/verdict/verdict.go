// Package verdict is the lab-aware reading of a report: which events of a
// lab's script end (its transients), and the recovery verdicts on them
// that internal/report computes from a run's series. It is apart from
// internal/report so that the recorder and the report's types, which the
// client runtime links, link no lab-file parser (internal/labfile).
package verdict

import (
	"slices"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// Transients lists lab's script events that end, in script order: those
// time-boxed with for, and drills on servers whose undo is another drill
// (slow, kill, fail: the drill table's undo, labfile.Undo) that the script
// takes later on the same target.
func Transients(lab *labfile.Lab) []report.Transient {
	var out []report.Transient
	for i, e := range lab.Events {
		t := report.Transient{Event: e.String(), From: e.At.Seconds(), To: -1}
		if e.For > 0 {
			t.To = (e.At + e.For).Seconds()
		} else if undo, ok := serverUndo(lab, e); ok {
			for _, u := range lab.Events[i+1:] {
				if u.Action == undo && u.Target == e.Target {
					t.To = u.At.Seconds()
					break
				}
			}
		}
		if t.To >= t.From {
			out = append(out, t)
		}
	}
	return out
}

// HasTransients reports whether lab's script has an event that ends, so
// that a run needs its series for the recovery verdicts.
func HasTransients(lab *labfile.Lab) bool { return len(Transients(lab)) > 0 }

// serverUndo is the drill that ends e, when e is a drill on servers whose
// undo is a drill of its own (restore, restart, recover), not the same
// action with other values (errors).
func serverUndo(lab *labfile.Lab, e labfile.Event) (labfile.Action, bool) {
	d, ok := labfile.DrillOf(e.Action)
	if !ok || d.Scope != labfile.OnServers || !d.Undoable() {
		return "", false
	}
	u, err := labfile.Undo(lab, e)
	if err != nil || u.Action == e.Action {
		return "", false
	}
	return u.Action, true
}

// AddRecovery gives every run of r that has a series its verdict on each
// transient of its lab's script: lab under the setting of the run's name,
// from settings (lab.Compare when none are given), since a setting may
// change the script (events[0].for); lab itself for a run of no setting.
func AddRecovery(r *report.Report, lab *labfile.Lab, settings ...labfile.Setting) {
	if len(settings) == 0 {
		settings = lab.Compare
	}
	own := Transients(lab)
	for i := range r.Runs {
		ts := own
		if k := slices.IndexFunc(settings, func(s labfile.Setting) bool { return s.Name == r.Runs[i].Name }); k >= 0 {
			if l, err := lab.WithSetting(settings[k]); err == nil {
				ts = Transients(l)
			}
		}
		r.Runs[i].JudgeRecovery(ts)
	}
}

// RecoveryLines are the event-log lines of the verdicts on lab's transients
// that bins, the run's series so far, decide (report.RecoveryLog): what the
// dashboard's event log shows on either clock; ended says the run is over.
func RecoveryLines(lab *labfile.Lab, bins []report.Bin, ended bool) []report.LogLine {
	return report.RecoveryLog(Transients(lab), bins, ended)
}
