package labfile_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

const scripted = `duration: 20s
servers:
  - count: 3
events:
  - {at: 5s, action: slow, target: all, speed: 0.5, for: 1500ms}
  - {at: 8s, action: rate, rate: 300}
  - {at: 9s, action: set, set: {clients.retries: "1"}}
`

// A path may name a field of one script event where the script may change
// (ApplyWithScript, what lab sweep --vary uses, and a compare setting):
// a trigger's size, its instant and its time box.
func TestApplyWithScript(t *testing.T) {
	l := mustParse(t, scripted)
	for _, s := range []struct{ path, value string }{
		{"events[0].speed", "0.7"}, {"events[0].for", "3s"}, {"events[0].at", "4s"}, {"events[1].rate", "150"},
		{"events[0].target", "s2"}, {"clients.rate", "250"},
	} {
		if err := l.ApplyWithScript(s.path, s.value); err != nil {
			t.Fatalf("ApplyWithScript(%s, %s): %v", s.path, s.value, err)
		}
	}
	e := l.Events[0]
	if e.Speed != 0.7 || e.For != 3*time.Second || e.At != 4*time.Second || e.Target != "s2" || l.Events[1].Rate != 150 || l.Clients.Rate != 250 {
		t.Errorf("not applied: %+v, rate event %+v, clients.rate %v", e, l.Events[1], l.Clients.Rate)
	}
	got, err := mustParse(t, scripted).WithSetting(labfile.Setting{Name: "milder", Set: map[string]string{"events[0].speed": "0.9", "events[0].for": "1s"}})
	if err != nil || got.Events[0].Speed != 0.9 || got.Events[0].For != time.Second {
		t.Errorf("a compare setting of an event's fields: %v %+v", err, got)
	}
}

// Every way a script path can be wrong names the path and what is wrong,
// and leaves the lab as it was; the knob paths of Apply (the processes'
// settings APIs) and set events do not reach the script at all.
func TestApplyWithScriptErrors(t *testing.T) {
	cases := []struct{ path, value, want string }{
		{"events.speed", "0.5", "events: name one event by its index, like events[0].at (the script has 3 events: 0..2)"},
		{"events[3].speed", "0.5", "events[3]: index 3 is past the script: it has 3 events (0..2)"},
		{"events[1].speed", "0.5", "events[1].speed: is not a field of a rate event (it takes at, for, rate)"},
		{"events[0].action", "kill", "events[0].action: is not a field of a slow event (it takes at, for, target, speed)"},
		{"events[2].set", "x", "events[2].set: is not a field of a set event (it takes at, for)"},
		{"events[0].sped", "0.5", `events[0].sped: unknown field "sped" in an event; did you mean "speed"? (allowed: at, for, target, speed)`},
		{"events[0]", "0.5", "events[0]: is an event; set one of its fields: at, for, target, speed"},
		{"events[0].speed.x", "0.5", "events[0].speed: speed is a value, not a section"},
		{"events[0].speed", "200", "events[0].speed: slow needs speed in (0, 100] (0.25 = quarter speed), got 200"},
		{"events[0].speed", "fast", `events[0].speed: want a number, got "fast"`},
		{"events[0].for", "1", "events[0].for: want a duration"},
		{"events[0].at", "25s", "events[0].at: must be before the end of the lab (duration 20s), got 25s"},
		{"events[1].at", "1s", "events[1].at: events must be in time order: 1s comes after 5s (events[0])"},
		{"events[0].target", "s9", `no server named "s9"`},
	}
	for _, c := range cases {
		l := mustParse(t, scripted)
		before := l.Clone()
		err := l.ApplyWithScript(c.path, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ApplyWithScript(%q, %q) = %v, want %q", c.path, c.value, err, c.want)
		}
		if !reflect.DeepEqual(l, before) {
			t.Errorf("ApplyWithScript(%q, %q) failed but changed the lab", c.path, c.value)
		}
	}
	one := mustParse(t, "duration: 5s\nservers: [{}]\nevents:\n  - {at: 1s, action: kill, target: s1}\n")
	if err := one.ApplyWithScript("events[1].at", "2s"); err == nil || !strings.Contains(err.Error(), "events[1]: index 1 is past the script: it has 1 event (0..0)") {
		t.Errorf("a script of one event: %v", err)
	}
	if err := mustParse(t, "duration: 5s\n").ApplyWithScript("events[0].speed", "0.5"); err == nil || !strings.Contains(err.Error(), "events: the lab has no script events to set") {
		t.Errorf("a lab without a script: %v", err)
	}
	if err := mustParse(t, scripted).Apply("events[0].speed", "0.6"); err == nil || !strings.Contains(err.Error(), `unknown field "events"`) {
		t.Errorf("Apply reached the script: %v", err)
	}
	_, err := labyaml.Parse("set.yaml", []byte(scripted+"  - {at: 10s, action: set, set: {\"events[0].speed\": \"0.9\"}}\n"))
	if err == nil || !strings.Contains(err.Error(), "set.events[0].speed: is fixed for a run (the script is laid out when the run starts") {
		t.Errorf("a set event naming an event's field: %v", err)
	}
	_, err = labyaml.Parse("cmp.yaml", []byte(scripted+"compare:\n  - {name: long, set: {\"events[0].for\": 30s}}\n"))
	if err == nil || !strings.Contains(err.Error(), "compare[0].set.events[0].for") {
		t.Errorf("a compare setting that time-boxes past the end: %v", err)
	}
}
