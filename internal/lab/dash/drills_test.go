package dash

import (
	"slices"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

// The snapshot's drills are labfile's drill table: every drill in its
// order, with its undo (the action labfile.Undo gives it) or why it has
// none, its fields and scope; and every drill on a server has an example
// the lab takes, which the page's buttons send.
func TestSnapshotDrillsAreTheDrillTable(t *testing.T) {
	lab := labfile.Default()
	got := decode(t, VirtualSnapshot(VirtualView{Lab: lab})).Drills
	if len(got) != len(labfile.Drills) {
		t.Fatalf("%d drills in the snapshot, %d in the table", len(got), len(labfile.Drills))
	}
	for i, d := range labfile.Drills {
		p := got[i]
		if p.Action != string(d.Action) || p.Undo != string(d.Undo) || p.NoUndo != d.NoUndo() ||
			!slices.Equal(p.Fields, d.Fields) || !slices.Equal(p.Optional, append([]string{}, d.Optional...)) ||
			p.Zone != d.Zone || p.Zones != d.NeedsZones || p.Scope != scopes[d.Scope] || p.Scope == "" {
			t.Errorf("drill %d: snapshot %+v, table %+v", i, p, *d)
			continue
		}
		if (p.Undo == "") == (p.NoUndo == "") {
			t.Errorf("%s: undo %q, no_undo %q: want exactly one", p.Action, p.Undo, p.NoUndo)
		}
		if p.Example == nil {
			if d.Scope == labfile.OnServers {
				t.Errorf("%s acts on servers and has no example: the page can make no button of it", d.Action)
			}
			continue
		}
		ev := *p.Example
		if ev.Action != d.Action || p.Text == "" {
			t.Errorf("%s: example %+v, text %q", d.Action, ev, p.Text)
		}
		if d.Zone || d.NeedsZones {
			continue // the default lab has no zones
		}
		// The page gives the target: a server's name, or none for a new
		// server, which the controller names (nextServerName).
		err := lab.CheckDrill(&ev)
		if d.Takes("target") {
			ev.Target = "s1"
			if err = lab.CheckDrill(&ev); err != nil {
				ev.Target = nextServerName(lab)
				err = lab.CheckDrill(&ev)
			}
		}
		if err != nil {
			t.Errorf("%s's example %s: %v", d.Action, ev, err)
		}
		if d.Undoable() {
			undo, err := labfile.Undo(lab, ev)
			if err != nil || string(undo.Action) != p.Undo {
				t.Errorf("%s: labfile.Undo gives %s (%v), the snapshot says %s", d.Action, undo, err, p.Undo)
			}
		}
	}
}
