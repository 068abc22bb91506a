package sim

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
)

// sessionScenarios cover the paths a session must replay exactly: a script
// event (rr-slow), breakers and their half-open probes (breaker), clients
// that balance themselves (client-side), retries with budgets (retry-storm),
// hedges (hedging) and health checks with slow start (slow-start).
var sessionScenarios = []string{"rr-slow", "breaker", "client-side", "retry-storm", "hedging", "slow-start"}

func runLabJSON(t *testing.T, lab *labfile.Lab) []byte {
	t.Helper()
	res, err := Run(lab, Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res.Run)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// playTo advances s in steps of step up to the end of its run.
func playOut(t *testing.T, s *Session, step time.Duration) []byte {
	t.Helper()
	for at := s.Now(); !s.Ended(); {
		at += clock.Instant(step)
		if err := s.AdvanceTo(at); err != nil {
			t.Fatal(err)
		}
	}
	res, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(res.Run)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSessionToTheEndIsRun(t *testing.T) {
	for _, name := range sessionScenarios {
		t.Run(name, func(t *testing.T) {
			lab := loadScenario(t, name)
			if name == "breaker" { // its breakers on, so they open, probe and close
				var err error
				if lab, err = lab.WithSetting(labfile.Setting{Name: "breaker", Set: map[string]string{"balancers.breaker.enabled": "true"}}); err != nil {
					t.Fatal(err)
				}
			}
			want := runLabJSON(t, lab)
			for _, step := range []time.Duration{250 * time.Millisecond, 7 * time.Millisecond, time.Hour} {
				s, err := NewSession(lab, SessionOptions{Frames: 81, LatencyBins: 8})
				if err != nil {
					t.Fatal(err)
				}
				if got := playOut(t, s, step); string(got) != string(want) {
					t.Errorf("steps of %v: the session's report differs from Run's (%d vs %d bytes)", step, len(got), len(want))
				}
			}
		})
	}
}

// state is what a session shows at its instant: the bins so far and the
// world's state.
type shown struct {
	Bins   any
	State  State
	Frames []State
	Log    any
}

func showAt(t *testing.T, s *Session) shown {
	t.Helper()
	return shown{Bins: append([]any(nil), toAny(s.Bins())...), State: s.State(), Frames: append([]State(nil), s.Frames()...),
		Log: append([]any(nil), toAny(s.Log())...)}
}

func toAny[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func TestSessionStepsDoNotChangeWhatItShows(t *testing.T) {
	lab, err := loadScenario(t, "breaker").WithSetting(labfile.Setting{Name: "breaker", Set: map[string]string{"balancers.breaker.enabled": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	at := clock.Instant(14 * time.Second)
	var first shown
	for i, step := range []time.Duration{time.Millisecond, 250 * time.Millisecond, 14 * time.Second} {
		s, err := NewSession(lab, SessionOptions{Frames: 81, LatencyBins: 8})
		if err != nil {
			t.Fatal(err)
		}
		for now := clock.Instant(0); now < at; {
			now = min(now+clock.Instant(step), at)
			if err := s.AdvanceTo(now); err != nil {
				t.Fatal(err)
			}
			_ = s.State() // looking changes nothing
		}
		got := showAt(t, s)
		if n := len(s.Bins()); n != 56 {
			t.Fatalf("steps of %v: %d bins closed at 14 s, want 56", step, n)
		}
		if i == 0 {
			first = got
			continue
		}
		if !reflect.DeepEqual(got, first) {
			t.Errorf("steps of %v show a different state at 14 s than steps of 1 ms", step)
		}
	}
}

func TestSessionDrillsAreScriptEvents(t *testing.T) {
	lab := loadScenario(t, "rr-slow")
	s, err := NewSession(lab, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	drills := []struct {
		at time.Duration
		ev labfile.Event
	}{
		{2 * time.Second, labfile.Event{Action: labfile.ActionKill, Target: "s3"}},
		{5 * time.Second, labfile.Event{Action: labfile.ActionAlgorithm, Algorithm: "p2c"}},
		{7*time.Second + 3*time.Millisecond, labfile.Event{Action: labfile.ActionRestart, Target: "s3"}},
	}
	for _, d := range drills {
		if err := s.AdvanceTo(clock.Instant(d.at)); err != nil {
			t.Fatal(err)
		}
		ev, err := s.Drill(d.ev)
		if err != nil {
			t.Fatal(err)
		}
		if ev.At != d.at {
			t.Errorf("%s recorded at %v, want %v", ev, ev.At, d.at)
		}
		if s.Now() != clock.Instant(d.at) {
			t.Errorf("after the drill the session is at %v, want %v", time.Duration(s.Now()), d.at)
		}
	}
	saved := s.Lab()
	if n := len(saved.Events); n != 4 {
		t.Fatalf("the saved script has %d events, want rr-slow's one and the three drills", n)
	}
	if saved.Events[2].Action != labfile.ActionAlgorithm || saved.Events[1].Action != labfile.ActionSlow {
		t.Errorf("the drill at 5 s should follow rr-slow's own event at 5 s: %v", saved.Events)
	}
	got := playOut(t, s, 100*time.Millisecond)
	// The saved lab, written out and read back as a file, runs the same.
	data, err := labyaml.Marshal(saved)
	if err != nil {
		t.Fatal(err)
	}
	back, err := labyaml.Parse("saved.yaml", data)
	if err != nil {
		t.Fatalf("the saved lab does not parse: %v\n%s", err, data)
	}
	if want := runLabJSON(t, back); string(got) != string(want) {
		t.Errorf("the saved lab's run differs from the session's")
	}
	if plain := runLabJSON(t, lab); string(got) == string(plain) {
		t.Errorf("the drills changed nothing")
	}
}

func TestSessionSeekReplaysWithTheDrills(t *testing.T) {
	lab := loadScenario(t, "rr-slow")
	s, err := NewSession(lab, SessionOptions{Frames: 81, LatencyBins: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceTo(clock.Instant(3 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Drill(labfile.Event{Action: labfile.ActionSlow, Target: "all", Speed: 0.5}); err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceTo(clock.Instant(6 * time.Second)); err != nil {
		t.Fatal(err)
	}
	at6 := showAt(t, s)
	if err := s.AdvanceTo(clock.Instant(12 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceTo(clock.Instant(5 * time.Second)); err == nil {
		t.Error("advancing backwards should be refused")
	}
	if err := s.Seek(clock.Instant(6 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(showAt(t, s), at6) {
		t.Error("seeking back to 6 s shows another state than the first pass through 6 s")
	}
	if err := s.Seek(clock.Instant(time.Second)); err != nil { // before the drill: it is still in the script
		t.Fatal(err)
	}
	got := playOut(t, s, time.Second)
	if want := runLabJSON(t, s.Lab()); string(got) != string(want) {
		t.Error("a seek before a drill lost it: the run differs from the saved lab's")
	}
}

func TestSessionRefusesBadDrills(t *testing.T) {
	lab := loadScenario(t, "rr-slow")
	s, err := NewSession(lab, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AdvanceTo(clock.Instant(15 * time.Second)); err != nil {
		t.Fatal(err)
	}
	for name, ev := range map[string]labfile.Event{
		"unknown server":     {Action: labfile.ActionKill, Target: "s9"},
		"undo past the end":  {Action: labfile.ActionKill, Target: "s1", For: 10 * time.Second},
		"speed out of range": {Action: labfile.ActionSlow, Target: "s1", Speed: -1},
	} {
		if _, err := s.Drill(ev); err == nil {
			t.Errorf("%s: the drill was taken", name)
		}
	}
	if n := len(s.Lab().Events); n != 1 {
		t.Errorf("refused drills joined the script: %d events", n)
	}
	if err := s.AdvanceTo(clock.Instant(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Drill(labfile.Event{Action: labfile.ActionKill, Target: "s1"}); err == nil {
		t.Error("a drill after the end of the run was taken")
	}
}

// retry-storm's attempts time out at the client after 100 ms while they
// still wait at the servers: the session marks them abandoned. None are
// while the fleet keeps up (2 s); most of a queue is once it does not.
func TestSessionMarksAbandonedAttempts(t *testing.T) {
	lab := loadScenario(t, "retry-storm")
	s, err := NewSession(lab, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	count := func() (queued, abandoned int) {
		for _, sv := range s.State().Servers {
			if len(sv.Abandoned) != 0 && len(sv.Abandoned) != len(sv.Kinds) {
				t.Fatalf("%s: %d abandoned marks for %d queued", sv.Spec.Name, len(sv.Abandoned), len(sv.Kinds))
			}
			queued += len(sv.Kinds)
			for _, a := range sv.Abandoned {
				if a {
					abandoned++
				}
			}
		}
		return queued, abandoned
	}
	if err := s.AdvanceTo(clock.Instant(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if q, a := count(); a != 0 {
		t.Errorf("at 2 s %d of %d queued attempts are marked abandoned, want none", a, q)
	}
	// 8 s: the storm the slowdown from 5 s set off (retry-storm's story)
	if err := s.AdvanceTo(clock.Instant(8 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if q, a := count(); q < 100 || a*2 < q {
		t.Errorf("at 8 s %d of %d queued attempts are marked abandoned, want most of a long queue", a, q)
	}
}

// The session's log carries the recovery verdicts as its bins decide them,
// agreeing with the report's: in retry-storm, with a retry budget the fleet
// is back 1.5 s after the slowdown ends (the line appears at 6.5 + 1.5 + 2
// s, once the hold proves it, and not a bin before); with plain retries it
// never is, which the log says only when the run is over.
func TestSessionLogsRecoveryVerdicts(t *testing.T) {
	verdicts := func(s *Session) []string {
		var out []string
		for _, l := range s.Log() {
			if strings.HasPrefix(l.Text, "recovery from ") {
				out = append(out, fmt.Sprintf("%g %s", l.T, l.Text))
			}
		}
		return out
	}
	for _, c := range []struct {
		setting string
		at      float64 // when the verdict line appears (-1: at the end)
		says    string
	}{
		{"retry-budget", 10, "back 1.5s after it ended"},
		{"retries", -1, "did not recover within the run (metastable)"},
	} {
		t.Run(c.setting, func(t *testing.T) {
			lab := loadScenario(t, "retry-storm")
			var set labfile.Setting
			for _, s := range lab.Compare {
				if s.Name == c.setting {
					set = s
				}
			}
			lab, err := lab.WithSetting(set)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSession(lab, SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for at := 250 * time.Millisecond; !s.Ended(); at += 250 * time.Millisecond {
				if err := s.AdvanceTo(clock.Instant(at)); err != nil {
					t.Fatal(err)
				}
				got := verdicts(s)
				due := c.at >= 0 && at.Seconds() >= c.at || s.Ended()
				if !due && len(got) > 0 {
					t.Fatalf("at %v: %q, before the bins decide it", at, got)
				}
				if due && (len(got) != 1 || !strings.Contains(got[0], c.says)) {
					t.Fatalf("at %v (ended %v): %q, want one line saying %q", at, s.Ended(), got, c.says)
				}
			}
			if c.at >= 0 && !strings.HasPrefix(verdicts(s)[0], fmt.Sprint(c.at)+" ") {
				t.Errorf("the line is at %q, want %gs", verdicts(s)[0], c.at)
			}
			res, err := s.Result()
			if err != nil {
				t.Fatal(err)
			}
			rep := &report.Report{Runs: []report.Run{res.Run}}
			verdict.AddRecovery(rep, lab)
			if v := rep.Runs[0].Recovery; len(v) != 1 || !strings.Contains(verdicts(s)[0], v[0].Says()) {
				t.Errorf("the report's verdict %+v differs from the log's %q", v, verdicts(s))
			}
		})
	}
}

// Worked is the work of the replay to the instant reached: the same
// however the session got there (one AdvanceTo, slices of AdvanceWithin, a
// Seek back), none after a Rewind, and each slice of AdvanceWithin does
// some work and stops once it has done its share (at the guard's next
// look, every 1,024 events: at most one event's work more per event).
func TestSessionWorkedIsTheReplaysWork(t *testing.T) {
	lab := loadScenario(t, "retry-storm")
	at := clock.Instant(6 * time.Second)
	one, err := NewSession(lab, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := one.AdvanceTo(at); err != nil {
		t.Fatal(err)
	}
	want := one.Worked()
	if want <= 0 {
		t.Fatalf("worked %g after 6 s of retry-storm", want)
	}
	sliced, err := NewSession(lab, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const slice = 5000
	for n := 0; ; n++ {
		before := sliced.Worked()
		reached, err := sliced.AdvanceWithin(at, slice)
		if err != nil {
			t.Fatal(err)
		}
		if reached {
			break
		}
		if did := sliced.Worked() - before; did < slice || did > slice+2048 {
			t.Fatalf("slice %d did work %g, want its share %d (and less than two guard looks more)", n, did, slice)
		}
	}
	if got := sliced.Worked(); got != want {
		t.Errorf("worked %g after slices to 6 s, %g after one AdvanceTo", got, want)
	}
	if err := sliced.Rewind(); err != nil {
		t.Fatal(err)
	}
	if got := sliced.Worked(); got != 0 {
		t.Errorf("worked %g after a rewind, want 0", got)
	}
	if err := one.AdvanceTo(at + clock.Instant(time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := one.Seek(at); err != nil {
		t.Fatal(err)
	}
	if got := one.Worked(); got != want {
		t.Errorf("worked %g after a seek back to 6 s, want %g", got, want)
	}
}
