package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// slowdown is a transient from 5 s to 6.5 s: a slowdown for 1.5 s.
var slowdown = Transient{Event: "slow all speed=0.5 for=1.5s", From: 5, To: 6.5}

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
	rep := &Report{Runs: []Run{
		{Name: "back", Series: series(5, 9, false)},      // back 2.5 s after the end at 6.5 s
		{Name: "slow-tail", Series: series(5, 10, true)}, // goodput fine, p99 out of the band until 10 s
		{Name: "stuck", Series: series(5, 99, false)},    // never back: metastable
		{Name: "blip", Series: series(5, 18.5, false)},   // back at 18.5 s, but only 1.5 s left to hold
		{Name: "no-series"},
	}}
	for i := range rep.Runs {
		rep.Runs[i].JudgeRecovery([]Transient{slowdown})
	}
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

	late := Run{Name: "late", Series: series(5, 5, false)}
	late.JudgeRecovery([]Transient{{Event: "slow all speed=0.5 for=14s", From: 5, To: 19}})
	if v := late.Recovery; len(v) != 1 || v[0].Verdict != TooShort {
		t.Errorf("a transient ending 1 s before the run: %+v, want too-short", v)
	}
	late.JudgeRecovery(nil)
	if len(late.Recovery) != 1 {
		t.Errorf("no transients: the verdicts became %+v, want them left as they were", late.Recovery)
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
	ts := []Transient{slowdown}
	back := series(5, 9, false)
	upTo := func(bins []Bin, t float64) []Bin { // the bins closed by t
		n := 0
		for n < len(bins) && bins[n].T+BinWidth.Seconds() <= t+1e-9 {
			n++
		}
		return bins[:n]
	}
	for _, at := range []float64{4, 6.5, 9, 10.75} { // before, during, after the trigger, the hold not yet done
		if got := RecoveryLog(ts, upTo(back, at), false); len(got) != 0 {
			t.Errorf("by %gs: %+v, want no verdict yet", at, got)
		}
	}
	want := "recovery from slow all speed=0.5 for=1.5s (5s to 6.5s): back 2.5s after it ended (goodput 100.0%, p99 100ms before)"
	for _, at := range []float64{11, 15, 20} {
		got := RecoveryLog(ts, upTo(back, at), at == 20)
		if len(got) != 1 || got[0].T != 11 || got[0].Text != want {
			t.Errorf("by %gs: %+v, want the recovery at 11 s: %q", at, got, want)
		}
	}
	stuck := series(5, 99, false)
	if got := RecoveryLog(ts, upTo(stuck, 19), false); len(got) != 0 {
		t.Errorf("stuck, running: %+v, want no verdict before the end", got)
	}
	got := RecoveryLog(ts, stuck, true)
	if len(got) != 1 || got[0].T != 20 || !strings.Contains(got[0].Text, "did not recover within the run (metastable)") {
		t.Errorf("stuck, ended: %+v, want metastable at the run's end (20 s)", got)
	}
	if got := RecoveryLog(nil, back, true); got != nil {
		t.Errorf("a script without transients: %+v", got)
	}
}
