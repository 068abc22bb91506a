package report

import (
	"bytes"
	"strings"
	"testing"
)

// liveRun is a plain live run of 10,000 requests, late of them started
// late (the worst worstMs behind), sending ending sendingS seconds in.
func liveRun(late uint64, worstMs, sendingS float64) (*Report, *Run) {
	run := Run{Name: "127.0.0.1:8080", Requests: 10000, Succeeded: 10000, Outcomes: Outcomes{Succeeded: 10000},
		Pacing: &Pacing{Started: 10000, Late: late, P50: 0.01, P99: 1, Max: worstMs},
		Load: &Load{Target: "http://127.0.0.1:8080/", Connections: 256, Rate: 1000, Due: 10000, Sent: 10000,
			SendingS: sendingS, AchievedRate: 10000 / sendingS, StatusCodes: map[int]uint64{200: 10000}}}
	run.Load.Generator.Behind = IsBehind(late, 10000, 0)
	run.Load.Generator.Advice = "The machine was busy."
	rep := &Report{Mode: "live", DurationS: 10, Runs: []Run{run}}
	return rep, &rep.Runs[0]
}

// A generator is behind when at least BehindShare of its requests started
// late, or one never started: a single request 12 ms late of 10,000 is the
// machine's noise, shown in the Pacing row and not as a warning. Before,
// one late request made the BEHIND paragraph (and four lines of warnings,
// "1 requests").
func TestBehindInProportion(t *testing.T) {
	for _, c := range []struct {
		late, started, never uint64
		want                 bool
	}{
		{0, 10000, 0, false},
		{1, 10000, 0, false},
		{99, 10000, 0, false},
		{100, 10000, 0, true},
		{0, 10000, 1, true},
		{1, 1, 0, true},
	} {
		if got := IsBehind(c.late, c.started, c.never); got != c.want {
			t.Errorf("IsBehind(%d late of %d, %d never started) = %v", c.late, c.started, c.never, got)
		}
	}
	rep, run := liveRun(1, 12, 10)
	var out bytes.Buffer
	rep.WriteLoad(&out)
	if strings.Contains(out.String(), "BEHIND") || BehindLine(run) != "" || BehindParagraph(run) != "" {
		t.Errorf("one request 12ms late of 10,000 is warned about:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "Pacing        [late, 50, 99, max]                      1, ") {
		t.Errorf("the Pacing row does not count it:\n%s", out.String())
	}
}

// The warning reads right: counts in proportion, "1 request" in the
// singular, the share late.
func TestBehindTextReadsRight(t *testing.T) {
	_, run := liveRun(250, 51.5, 10)
	run.Load.Generator.NeverStarted = 1
	run.Load.Generator.Behind = true
	text := BehindText(run)
	for _, want := range []string{"started 250 of 10000 requests more than 10ms after their intended time (2.5%; the worst 51.500ms)",
		"; 1 request never started", "The machine was busy."} {
		if !strings.Contains(text, want) {
			t.Errorf("the warning lacks %q:\n%s", want, text)
		}
	}
	if line := BehindLine(run); line != "behind its schedule: 250 of 10000 requests started more than 10ms late (2.5%, the worst 51.500ms); 1 request never started" {
		t.Errorf("line: %q", line)
	}
	if Plural(1, "request") != "1 request" || Plural(0, "request") != "0 requests" || Plural(2, "whole row") != "2 whole rows" {
		t.Error("Plural")
	}
}

// The Duration row gives both figures the same way and says, when sending
// ran past the schedule, by how much; before, "10s, 14.532s" left the
// reader to work out what the two numbers meant.
func TestDurationRowWhenBehind(t *testing.T) {
	for sending, want := range map[float64]string{
		10:     "Duration      [run, sending]                           10.000s, 10.000s\n",
		14.532: "Duration      [run, sending]                           10.000s, 14.532s  (the last request started 4.532s after the schedule's end)\n",
	} {
		rep, _ := liveRun(0, 1, sending)
		var out bytes.Buffer
		rep.WriteLoad(&out)
		if !strings.Contains(out.String(), want) {
			t.Errorf("sending %gs: want the row %q in\n%s", sending, want, out.String())
		}
	}
}

// A run in which nothing succeeded says how its requests ended in the
// Success row, and its unanswered exchanges under Errors.
func TestNothingSucceededIsSaid(t *testing.T) {
	rep, run := liveRun(0, 1, 1)
	run.Succeeded, run.Outcomes = 0, Outcomes{TimedOut: 42}
	run.Load.StatusCodes, run.Load.ErrorKinds = nil, map[string]uint64{ErrCutOff: 42}
	var out bytes.Buffer
	rep.WriteLoad(&out)
	for _, want := range []string{"0.00%  (42 timed out)", "Errors        [kind:count]                             no answer by the end:42"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("want %q in\n%s", want, out.String())
		}
	}
}

// The table's header names the external proxy every run went through.
func TestHeaderNamesTheProxy(t *testing.T) {
	rep, _ := liveRun(0, 1, 10)
	rep.Lab, rep.Seed, rep.Through = "rr-slow", 1, "HAProxy"
	var out bytes.Buffer
	if err := rep.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(out.String(), "\n"); first != "lab rr-slow (live through HAProxy, seed 1, 10s)" {
		t.Errorf("header %q", first)
	}
}
