package verdict

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
)

func recoveryLab(t *testing.T, events string) *labfile.Lab {
	t.Helper()
	lab, err := labyaml.Parse("r.yaml", []byte("duration: 20s\nevents:\n"+events))
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// series is 20 s of bins: healthy (100 requests, p99 100 ms) but for the
// bins from 5 s to good, where nine requests in ten fail.
func series(good float64) []report.Bin {
	var out []report.Bin
	for i := range 80 {
		b := report.Bin{T: float64(i) * 0.25, Offered: 100, Succeeded: 100, P99: 100}
		if b.T >= 5 && b.T < good {
			b.Succeeded, b.Failed = 10, 90
		}
		out = append(out, b)
	}
	return out
}

// Script events with an end: for, or a later undo on the same target.
func TestTransients(t *testing.T) {
	lab := recoveryLab(t, `
  - {at: 2s, action: slow, target: s1, speed: 0.5}
  - {at: 3s, action: kill, target: s2, for: 4s}
  - {at: 4s, action: fail, target: s3}
  - {at: 5s, action: restore, target: s4}
  - {at: 9s, action: restore, target: s1}
`)
	got := Transients(lab)
	if len(got) != 2 || got[0].From != 2 || got[0].To != 9 || got[1].From != 3 || got[1].To != 7 ||
		!strings.HasPrefix(got[0].Event, "slow s1") {
		t.Errorf("transients %+v: want slow s1 2-9 s (restored later) and kill s2 3-7 s (for), not the fail nobody undoes", got)
	}
	if !HasTransients(lab) || HasTransients(recoveryLab(t, "  - {at: 4s, action: fail, target: s3}\n")) {
		t.Error("HasTransients disagrees with Transients")
	}
}

// A compare setting may change the script (a longer slowdown): each run's
// verdict is on its own setting's transient, from the settings given or
// the lab's compare list; a run of no setting gets the lab's; a run
// without a series gets none.
func TestRecoveryPerSettingScript(t *testing.T) {
	lab := recoveryLab(t, "  - {at: 5s, action: slow, target: all, speed: 0.5, for: 1500ms}\n"+
		"compare:\n  - {name: long, set: {\"events[0].for\": 3s}}\n")
	for _, settings := range [][]labfile.Setting{nil, {{Name: "long", Set: map[string]string{"events[0].for": "3s"}}}} {
		rep := &report.Report{Runs: []report.Run{{Name: "long", Series: series(9)}, {Name: "other", Series: series(9)}, {Name: "none"}}}
		AddRecovery(rep, lab, settings...)
		long, other := rep.Runs[0].Recovery, rep.Runs[1].Recovery
		if len(long) != 1 || long[0].To != 8 || long[0].Event != "slow all speed=0.5 for=3s" || *long[0].AfterS != 1 {
			t.Errorf("settings %v: long's verdict %+v, want its own slowdown to 8 s, back 1 s after", settings, long)
		}
		if len(other) != 1 || other[0].To != 6.5 || *other[0].AfterS != 2.5 {
			t.Errorf("settings %v: a run of no setting: %+v, want the lab's slowdown to 6.5 s, back 2.5 s after", settings, other)
		}
		if rep.Runs[2].Recovery != nil {
			t.Errorf("settings %v: a run without a series got %+v", settings, rep.Runs[2].Recovery)
		}
	}
}

// The dashboard's verdict lines are on the lab's own transients: the
// recovery from its slowdown, and none for a script without one.
func TestRecoveryLinesOfALab(t *testing.T) {
	lab := recoveryLab(t, "  - {at: 5s, action: slow, target: all, speed: 0.5, for: 1500ms}\n")
	want := "recovery from slow all speed=0.5 for=1.5s (5s to 6.5s): back 2.5s after it ended (goodput 100.0%, p99 100ms before)"
	if got := RecoveryLines(lab, series(9), true); len(got) != 1 || got[0].T != 11 || got[0].Text != want {
		t.Errorf("lines %+v, want the recovery at 11 s: %q", got, want)
	}
	if got := RecoveryLines(recoveryLab(t, "  - {at: 4s, action: fail, target: s3}\n"), series(9), true); got != nil {
		t.Errorf("a script without transients: %+v", got)
	}
}
