package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

func recoveryLab(t *testing.T, events string) *labfile.Lab {
	t.Helper()
	lab, err := labfile.Parse("r.yaml", []byte("duration: 20s\nevents:\n"+events))
	if err != nil {
		t.Fatal(err)
	}
	return lab
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
}

// series is 20 s of bins: healthy (100 requests, p99 100 ms) but for the
// bins from bad to good (all failing, or slow when slow is set).
func series(bad, good float64, slow bool) []Bin {
	var out []Bin
	for i := range 80 {
		b := Bin{T: float64(i) * 0.25, Offered: 100, Succeeded: 100, P99: 100}
		if b.T >= bad && b.T < good {
			if slow {
				b.P99 = 250
			} else {
				b.Succeeded, b.Failed, b.P99 = 10, 90, 100
			}
		}
		out = append(out, b)
	}
	return out
}

func TestRecoveryVerdicts(t *testing.T) {
	lab := recoveryLab(t, "  - {at: 5s, action: slow, target: all, speed: 0.5, for: 1500ms}\n")
	rep := &Report{Runs: []Run{
		{Name: "back", Series: series(5, 9, false)},      // back 2.5 s after the end at 6.5 s
		{Name: "slow-tail", Series: series(5, 10, true)}, // goodput fine, p99 out of the band until 10 s
		{Name: "stuck", Series: series(5, 99, false)},    // never back: metastable
		{Name: "blip", Series: series(5, 18.5, false)},   // back at 18.5 s, but only 1.5 s left to hold
		{Name: "no-series"},
	}}
	rep.AddRecovery(lab)
	after := func(name string) (string, float64) {
		v := rep.Find(name).Recovery
		if len(v) != 1 {
			t.Fatalf("%s: %d verdicts, want 1", name, len(v))
		}
		if v[0].Baseline != (Baseline{Goodput: 1, P99: 100}) || v[0].From != 5 || v[0].To != 6.5 {
			t.Errorf("%s: %+v, want the baseline 100%% / 100 ms of 1-5 s and the transient 5-6.5 s", name, v[0])
		}
		if v[0].AfterS == nil {
			return v[0].Verdict, -1
		}
		return v[0].Verdict, *v[0].AfterS
	}
	if v, a := after("back"); v != Recovered || a != 2.5 {
		t.Errorf("back: %s after %g s, want recovered after 2.5 s", v, a)
	}
	if v, a := after("slow-tail"); v != Recovered || a != 3.5 {
		t.Errorf("slow-tail: %s after %g s, want recovered after 3.5 s (p99 2.5x the baseline is out of the band)", v, a)
	}
	if v, _ := after("stuck"); v != Metastable {
		t.Errorf("stuck: %s, want metastable", v)
	}
	if v, _ := after("blip"); v != Metastable {
		t.Errorf("blip: %s, want metastable (never back for 2 s within the run)", v)
	}
	if rep.Find("no-series").Recovery != nil {
		t.Error("a run without a series got a verdict")
	}
	var b strings.Builder
	rep.writeRecovery(&b)
	for _, want := range []string{"recovery from slow all speed=0.5 for=1.5s (5s to 6.5s)", "back 2.5s after it ended", "did not recover within the run (metastable)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}

	short := recoveryLab(t, "  - {at: 5s, action: slow, target: all, speed: 0.5, for: 14s}\n")
	rep = &Report{Runs: []Run{{Name: "late", Series: series(5, 5, false)}}}
	rep.AddRecovery(short)
	if v := rep.Runs[0].Recovery; len(v) != 1 || v[0].Verdict != TooShort {
		t.Errorf("a transient ending 1 s before the run: %+v, want too-short", v)
	}
}

// A line's boundary lies between its highest point recovering on most
// seeds (every lower one too) and the next; none found when the lowest
// already fails, beyond when none does; turned round when the lowest fails
// and the highest recovers (an axis along which the trigger gets milder).
func TestFindBoundaries(t *testing.T) {
	pt := func(line string, x float64, ok, of int) SweepPoint {
		return SweepPoint{Values: []string{fmt.Sprint(x)}, X: x, Line: line,
			Recovery: &PointRecovery{Event: "slow all", Recovered: ok, Seeds: of}}
	}
	s := &Sweep{Axes: []SweepAxis{{Path: "clients.rate"}}, Points: []SweepPoint{
		pt("a", 100, 3, 3), pt("a", 200, 2, 3), pt("a", 300, 1, 3), pt("a", 400, 3, 3), // 1 of 3 at 300: the boundary, whatever 400 does
		pt("b", 100, 1, 2), pt("b", 200, 2, 2), pt("b", 300, 0, 2), // 1 of 2 is no majority
		pt("c", 100, 2, 2), pt("c", 200, 2, 2),
		pt("d", 100, 0, 2), pt("d", 200, 1, 2), pt("d", 300, 2, 2), pt("d", 400, 2, 2),
	}}
	s.FindBoundaries()
	want := []Boundary{
		{Line: "a", Event: "slow all", Found: true, Recovers: 200, RecoversValue: "200", Fails: 300, FailsValue: "300"},
		{Line: "b", Event: "slow all", Fails: 100, FailsValue: "100"},
		{Line: "c", Event: "slow all", Found: true, Beyond: true, Recovers: 200, RecoversValue: "200"},
		{Line: "d", Event: "slow all", Found: true, RecoversAbove: true, Recovers: 300, RecoversValue: "300", Fails: 200, FailsValue: "200"},
	}
	if !reflect.DeepEqual(s.Boundaries, want) {
		t.Errorf("boundaries\n%+v\nwant\n%+v", s.Boundaries, want)
	}
	var b strings.Builder
	if err := s.writeBoundaries(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"a  between 200 and 300                    (recovered on: 100:3/3 200:2/3 300:1/3 400:3/3)", "b  below 100", "c  above 200", "d  between 200 and 300, recovering above"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("table lacks %q:\n%s", w, b.String())
		}
	}
}

// The dashboard's verdict lines follow the bins as they close: none while
// the fleet is still down, the recovery once the hold proves it (at its
// end, 6.5 + 2.5 + 2 = 11 s), the same line at any later bin, and the
// metastable transients only once the run has ended.
func TestRecoveryLinesAsTheBinsClose(t *testing.T) {
	lab := recoveryLab(t, "  - {at: 5s, action: slow, target: all, speed: 0.5, for: 1500ms}\n")
	back := series(5, 9, false)
	upTo := func(bins []Bin, t float64) []Bin { // the bins closed by t
		n := 0
		for n < len(bins) && bins[n].T+BinWidth.Seconds() <= t+1e-9 {
			n++
		}
		return bins[:n]
	}
	for _, at := range []float64{4, 6.5, 9, 10.75} { // before, during, after the trigger, the hold not yet done
		if got := RecoveryLines(lab, upTo(back, at), false); len(got) != 0 {
			t.Errorf("by %gs: %+v, want no verdict yet", at, got)
		}
	}
	want := "recovery from slow all speed=0.5 for=1.5s (5s to 6.5s): back 2.5s after it ended (goodput 100.0%, p99 100ms before)"
	for _, at := range []float64{11, 15, 20} {
		got := RecoveryLines(lab, upTo(back, at), at == 20)
		if len(got) != 1 || got[0].T != 11 || got[0].Text != want {
			t.Errorf("by %gs: %+v, want the recovery at 11 s: %q", at, got, want)
		}
	}
	stuck := series(5, 99, false)
	if got := RecoveryLines(lab, upTo(stuck, 19), false); len(got) != 0 {
		t.Errorf("stuck, running: %+v, want no verdict before the end", got)
	}
	got := RecoveryLines(lab, stuck, true)
	if len(got) != 1 || got[0].T != 20 || !strings.Contains(got[0].Text, "did not recover within the run (metastable)") {
		t.Errorf("stuck, ended: %+v, want metastable at the run's end (20 s)", got)
	}
	if got := RecoveryLines(recoveryLab(t, ""), back, true); got != nil {
		t.Errorf("a script without transients: %+v", got)
	}
}

// A compare setting may change the script (a longer slowdown): each run's
// verdict is on its own setting's transient, from the settings given or
// the lab's compare list; a run of no setting gets the lab's.
func TestRecoveryPerSettingScript(t *testing.T) {
	lab := recoveryLab(t, "  - {at: 5s, action: slow, target: all, speed: 0.5, for: 1500ms}\n"+
		"compare:\n  - {name: long, set: {\"events[0].for\": 3s}}\n")
	for _, settings := range [][]labfile.Setting{nil, {{Name: "long", Set: map[string]string{"events[0].for": "3s"}}}} {
		rep := &Report{Runs: []Run{{Name: "long", Series: series(5, 9, false)}, {Name: "other", Series: series(5, 9, false)}}}
		rep.AddRecovery(lab, settings...)
		long, other := rep.Runs[0].Recovery, rep.Runs[1].Recovery
		if len(long) != 1 || long[0].To != 8 || long[0].Event != "slow all speed=0.5 for=3s" || *long[0].AfterS != 1 {
			t.Errorf("settings %v: long's verdict %+v, want its own slowdown to 8 s, back 1 s after", settings, long)
		}
		if len(other) != 1 || other[0].To != 6.5 {
			t.Errorf("settings %v: a run of no setting: %+v, want the lab's slowdown to 6.5 s", settings, other)
		}
	}
}
