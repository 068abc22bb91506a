package scenarios

import (
	"fmt"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
)

// recovered is setting name's recovery verdict on its own first transient
// (the lab under that setting: a setting may change the trigger): whether
// the fleet came back once the trigger ended.
func (f *facts) recovered(name string) bool {
	rep := *f.rep
	rep.Runs = []report.Run{*f.run(name)}
	verdict.AddRecovery(&rep, f.lab)
	v := rep.Runs[0].Recovery
	if len(v) == 0 {
		f.fail(fmt.Errorf("%s has no recovery verdict (no series): %w", name, report.ErrUnmeasured))
		return false
	}
	return v[0].Verdict == report.Recovered
}

// trigger is the first script event of the lab under setting name.
func (f *facts) trigger(name string) labfile.Event {
	for _, s := range f.lab.Compare {
		if s.Name != name {
			continue
		}
		l, err := f.lab.WithSetting(s)
		if err != nil || len(l.Events) == 0 {
			f.fail(fmt.Errorf("setting %s: no trigger (%v)", name, err))
			return labfile.Event{}
		}
		return l.Events[0]
	}
	f.fail(fmt.Errorf("no setting %q in the lab: %w", name, report.ErrUnmeasured))
	return labfile.Event{}
}

// triggerCells are the lab's settings that change nothing but the trigger
// (every set path a field of a script event): the cells of one map.
func (f *facts) triggerCells() []string {
	var out []string
	for _, s := range f.lab.Compare {
		only := s.Algorithm == ""
		for k := range s.Set {
			only = only && strings.HasPrefix(k, "events[")
		}
		if only {
			out = append(out, s.Name)
		}
	}
	return out
}

// monotone checks the map's shape on its cells: every trigger no deeper
// (speed no lower) and no longer than one the fleet survived was survived
// too.
func (f *facts) monotone() {
	cells := f.triggerCells()
	f.want(len(cells) >= 2, "fewer than two cells of the map: %v", cells)
	for _, a := range cells {
		for _, b := range cells {
			ta, tb := f.trigger(a), f.trigger(b)
			if a != b && ta.Speed >= tb.Speed && ta.For <= tb.For && f.recovered(b) {
				f.want(f.recovered(a), "%s was survived but the milder %s was not", b, a)
			}
		}
	}
}
