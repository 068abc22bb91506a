package labfile_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

const timedBase = `name: timed
duration: 30s
servers:
  - count: 3
    errors: 0.01
`

func TestUndo(t *testing.T) {
	lab := mustParse(t, timedBase+"  - name: odd\n    errors: 0.2\nclients: {rate: 200}\n")
	lab.Balancers.Algorithm = "least-outstanding"
	lab.Clients.Budget = 0.2
	for _, c := range []struct {
		ev   labfile.Event
		want string
	}{
		{labfile.Event{Action: labfile.ActionSlow, Target: "s2", Speed: 0.25}, "restore s2"},
		{labfile.Event{Action: labfile.ActionSlow, Target: "all", Speed: 0.25}, "restore all"},
		{labfile.Event{Action: labfile.ActionKill, Target: "s1"}, "restart s1"},
		{labfile.Event{Action: labfile.ActionFail, Target: "odd"}, "recover odd"},
		{labfile.Event{Action: labfile.ActionErrors, Target: "odd", Share: 0.9}, "errors odd share=0.2"},
		{labfile.Event{Action: labfile.ActionErrors, Target: "s3", Share: 0.9}, "errors s3 share=0.01"},
		{labfile.Event{Action: labfile.ActionRate, Rate: 900}, "rate rate=200"},
		{labfile.Event{Action: labfile.ActionAlgorithm, Algorithm: "random"}, "algorithm algorithm=least-outstanding"},
		{labfile.Event{Action: labfile.ActionSet, Set: map[string]string{"clients.budget": "0.5", "servers[0].queue.capacity": "5",
			"balancers.timeout": "1s"}}, "set balancers.timeout=0s clients.budget=0.2 servers[0].queue.capacity=0"},
		{labfile.Event{Action: labfile.ActionAddServer, Target: "s9"}, "remove-server s9"},
	} {
		u, err := labfile.Undo(lab, c.ev)
		if err != nil || u.String() != c.want {
			t.Errorf("Undo(%s) = %q, %v; want %q", c.ev, u, err, c.want)
		}
	}
	for _, c := range []struct {
		ev   labfile.Event
		says string
	}{
		{labfile.Event{Action: labfile.ActionGC, Target: "s1", Pause: time.Second}, "nothing to undo"},
		{labfile.Event{Action: labfile.ActionRemoveServer, Target: "s1"}, "cannot be time-boxed"},
		{labfile.Event{Action: labfile.ActionRestore, Target: "s1"}, "itself an undo"},
		{labfile.Event{Action: labfile.ActionRestart, Target: "s1"}, "itself an undo"},
		{labfile.Event{Action: labfile.ActionRecover, Target: "s1"}, "itself an undo"},
		{labfile.Event{Action: labfile.ActionErrors, Target: "all", Share: 0.5}, "shares differ"},
		{labfile.Event{Action: labfile.ActionSet, Set: map[string]string{"servers.errors": "0.5"}}, "differ"},
	} {
		if _, err := labfile.Undo(lab, c.ev); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Undo(%s) = %v; want an error saying %q", c.ev, err, c.says)
		}
	}
	// With a rate profile there is no rate to return to, until a rate event
	// has replaced the profile.
	prof := mustParse(t, timedBase+"clients: {profile: {shape: ramp, from: 10, to: 100, over: 10s}}\n")
	if _, err := labfile.Undo(prof, labfile.Event{Action: labfile.ActionRate, Rate: 5}); err == nil || !strings.Contains(err.Error(), "profile") {
		t.Errorf("timed rate under a profile: %v", err)
	}
	prof.Record(labfile.Event{Action: labfile.ActionRate, Rate: 70})
	if u, err := labfile.Undo(prof, labfile.Event{Action: labfile.ActionRate, Rate: 5}); err != nil || u.Rate != 70 {
		t.Errorf("after a rate event replaced the profile: %v, %v", u, err)
	}
}

func TestGetReadsWhatApplySets(t *testing.T) {
	lab := mustParse(t, fullExample)
	for path, want := range map[string]string{
		"clients.budget": "0.1", "balancers.timeout": "500ms", "servers[1].speed": "0.25", "clients.hedge": "p95",
		"balancers.breaker.enabled": "true", "servers[0].queue.discipline": "lifo", "seed": "42",
		"servers[0].work.mean": "20ms", // no work of its own: the clients'
	} {
		got, err := lab.Get(path)
		if err != nil || got != want {
			t.Errorf("Get(%s) = %q, %v; want %q", path, got, err, want)
			continue
		}
		c := lab.Clone()
		if err := c.Apply(path, got); err != nil {
			t.Errorf("Apply(%s, %q): %v", path, got, err)
		}
	}
	for _, bad := range []string{"clients.nope", "servers.speed", "clients.work", "servers[7].speed", "clients..x"} {
		if _, err := lab.Get(bad); err == nil {
			t.Errorf("Get(%s): no error", bad)
		}
	}
}

func TestTimedEventsValidation(t *testing.T) {
	ok := mustParse(t, timedBase+`events:
  - {at: 2s, action: slow, target: s1, speed: 0.25, for: 5s}
  - {at: 3s, action: add-server, target: extra, for: 10s}
  - {at: 4s, action: kill, target: extra}
  - {at: 14s, action: set, set: {clients.retries: 2}, for: 3s}
  - {at: 20s, action: rate, rate: 50, for: 9s}
`)
	if ok.Events[0].For != 5*time.Second || ok.Events[0].String() != "slow s1 speed=0.25 for=5s" {
		t.Errorf("for: %v, %s", ok.Events[0].For, ok.Events[0])
	}
	for _, c := range []struct{ events, want string }{
		{"  - {at: 25s, action: slow, target: s1, speed: 0.5, for: 5s}\n", "events[0].for: the undo at 30s"},
		{"  - {at: 1s, action: slow, target: s1, speed: 0.5, for: -1s}\n", "events[0].for: must be > 0"},
		{"  - {at: 1s, action: gc, target: s1, pause: 1s, for: 5s}\n", "events[0].for: gc has nothing to undo"},
		{"  - {at: 1s, action: remove-server, target: s1, for: 5s}\n", "events[0].for: remove-server cannot be time-boxed"},
		{"  - {at: 1s, action: slow, target: s1, speed: 0.5, for: 5s}\n  - {at: 3s, action: restore, target: all}\n",
			"events[1].action: changes what events[0] (slow s1 speed=0.5 for=5s) holds until 6s"},
		{"  - {at: 1s, action: set, set: {clients.budget: 0.5}, for: 5s}\n  - {at: 2s, action: set, set: {clients.budget: 0.1}}\n",
			"events[1].action: changes what events[0]"},
		{"  - {at: 1s, action: add-server, target: x, for: 5s}\n  - {at: 7s, action: kill, target: x}\n",
			`events[1].target: no server named "x" at 7s`},
		{"  - {at: 1s, action: remove-server, target: s1}\n  - {at: 2s, action: kill, target: s1, for: 2s}\n",
			`events[1].target: no server named "s1"`},
		{"  - {at: 1s, action: set, set: {clients.profile.mean: 5}}\n", "events[0].set.clients.profile.mean: is fixed for a run"},
	} {
		got := parseErr(t, timedBase+"events:\n"+c.events)
		if !strings.Contains(got, c.want) {
			t.Errorf("for\n%s\ngot  %s\nwant %s", c.events, got, c.want)
		}
	}
	// Independent events may overlap a time-boxed one.
	mustParse(t, timedBase+`events:
  - {at: 1s, action: slow, target: s1, speed: 0.5, for: 5s}
  - {at: 2s, action: slow, target: s2, speed: 0.5}
  - {at: 3s, action: kill, target: s1, for: 1s}
  - {at: 6s, action: restore, target: s1}
`)
}

func TestProfileAndFaultsParse(t *testing.T) {
	l := mustParse(t, timedBase+`clients:
  profile: {shape: steps, levels: [50, 100, 200], every: 10s}
  faults: [{share: 0.05, status: 503}, {share: 0.1, delay: 50ms}, {share: 0.01, status: 500, delay: 1s}]
`)
	if p := l.Clients.Profile; p == nil || p.Shape != labfile.ShapeSteps || len(p.Levels) != 3 || p.Every != 10*time.Second {
		t.Fatalf("profile = %+v", p)
	}
	if f := l.Clients.Faults; len(f) != 3 || f[1].Delay != 50*time.Millisecond || f[0].String() != "5% status=503" {
		t.Fatalf("faults = %+v", f)
	}
	c := l.Clone()
	c.Clients.Profile.Levels[0], c.Clients.Faults[0].Share = 7, 0.5
	if l.Clients.Profile.Levels[0] != 50 || l.Clients.Faults[0].Share != 0.05 {
		t.Error("Clone shares the profile or the faults")
	}
	mustParse(t, "clients: {mode: closed, profile: {shape: ramp, from: 1, to: 50, over: 10s}}\n")
	for _, c := range []struct{ src, want string }{
		{"clients: {profile: {shape: wave}}\n", "lab.yaml:1:28: clients.profile.shape: must be one of ramp, steps, sine, spike"},
		{"clients: {profile: {shape: ramp, from: 1, to: 5}}\n", "clients.profile.over: must be in (0s, 8760h]"},
		{"clients: {profile: {shape: ramp, from: 1, to: 5, over: 1s, mean: 3}}\n", "clients.profile.mean: is not used by shape ramp"},
		{"clients: {profile: {shape: steps, levels: [1, -2], every: 1s}}\n", "clients.profile.levels[1]: must be a level in [0, 1000000]"},
		{"clients: {profile: {shape: sine, mean: 10, amplitude: 20, period: 1s}}\n", "clients.profile.amplitude: must be in [0, mean]"},
		{"clients: {mode: closed, profile: {shape: spike, base: 1, peak: 200000, at: 1s, for: 1s}}\n", "(users)"},
		{"clients: {mode: closed, profile: {shape: steps, levels: [0, 0.4], every: 1s}}\n", "clients.profile: never reaches one user"},
		{"clients: {faults: [{share: 0.5, status: 99}]}\n", "lab.yaml:1:41: clients.faults[0].status: must be an HTTP code in [200, 599]"},
		{"clients: {faults: [{share: 0.5, delay: 2m}]}\n", "clients.faults[0].delay: must be in [0, 1m0s]"},
		{"clients: {faults: [{share: 0.5}]}\n", "clients.faults[0]: needs a status"},
		{"clients: {faults: [{share: 1.5, status: 500}]}\n", "clients.faults[0].share: must be in (0, 1]"},
		{"clients: {faults: [{share: 0.6, status: 500}, {share: 0.6, status: 503}]}\n", "the shares sum to 1.2"},
	} {
		if got := parseErr(t, c.src); !strings.Contains(got, c.want) {
			t.Errorf("%s: got %s\nwant %s", c.src, got, c.want)
		}
	}
}

func TestEventJSON(t *testing.T) {
	var e labfile.Event
	if err := json.Unmarshal([]byte(`{"action":"gc","target":"s1","pause":"300ms","for":null}`), &e); err != nil || e.Pause != 300*time.Millisecond {
		t.Fatalf("pause as text: %+v, %v", e, err)
	}
	if err := json.Unmarshal([]byte(`{"action":"slow","target":"s1","speed":0.5,"for":"30s"}`), &e); err != nil || e.For != 30*time.Second {
		t.Fatalf("for as text: %+v, %v", e, err)
	}
	// What encoding/json writes for an Event reads back (durations as nanoseconds).
	want := labfile.Event{Action: labfile.ActionSet, Set: map[string]string{"clients.budget": "0.1"}, For: 2 * time.Second, Pause: 5}
	data, _ := json.Marshal(want)
	var back labfile.Event
	if err := json.Unmarshal(data, &back); err != nil || back.String() != want.String() || back.Pause != 5 {
		t.Fatalf("round trip of %s: %+v, %v", data, back, err)
	}
	for _, bad := range []string{`{"action":"slow","sped":1}`, `{"action":"gc","pause":"soon"}`, `{"for":true}`} {
		if err := json.Unmarshal([]byte(bad), &e); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// lab run hands the lab to the processes as YAML: the new fields survive.
func TestMarshalKeepsProfileFaultsAndFor(t *testing.T) {
	for _, extra := range []string{
		"clients:\n  profile: {shape: sine, mean: 100, amplitude: 40, period: 7s}\n  faults: [{share: 0.1, status: 503, delay: 20ms}]\n",
		"clients: {mode: closed, profile: {shape: steps, levels: [1, 5, 2], every: 3s}}\n",
		"events: [{at: 1s, action: kill, target: s2, for: 2s}]\n",
	} {
		lab := mustParse(t, timedBase+extra)
		data, err := labyaml.Marshal(lab)
		if err != nil {
			t.Fatal(err)
		}
		back, err := labyaml.Parse("round-trip.yaml", data)
		if err != nil || !reflect.DeepEqual(lab, back) {
			t.Fatalf("round trip of\n%s: %v\n%s", extra, err, data)
		}
	}
}

// A time-boxed event on a server that is not there is one error, at the
// event's own instant: its undo (restart s9 at 15s) is not blamed a second
// time, at 0s. An undo whose server has gone since is blamed at its own
// instant (beside the overlap that removed it).
func TestTimedTargetErrorOnceAtItsInstant(t *testing.T) {
	got := parseErr(t, timedBase+"events:\n  - {at: 10s, action: kill, target: s9, for: 5s}\n")
	if want := `lab.yaml:7:37: events[0].target: no server named "s9" at 10s; servers then: s1, s2, s3, or all`; strings.TrimSpace(got) != want {
		t.Errorf("got\n%s\nwant the one error\n%s", got, want)
	}
	got = parseErr(t, timedBase+"events:\n  - {at: 1s, action: add-server, target: x, for: 5s}\n  - {at: 3s, action: remove-server, target: x}\n")
	if want := `events[0].for: no server named "x" at 6s; servers then: s1, s2, s3`; !strings.Contains(got, want) || strings.Contains(got, " at 0s") {
		t.Errorf("got\n%s\nwant an error saying\n%s", got, want)
	}
}
