package labfile_test

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// Every drill's text reads back as the same event, and so does its JSON:
// String and ParseDrill, MarshalJSON and UnmarshalJSON are inverses.
func TestDrillFormsRoundTrip(t *testing.T) {
	events := []labfile.Event{
		{Action: labfile.ActionSlow, Target: "s2", Speed: 0.25},
		{Action: labfile.ActionRestore, Target: "all"},
		{Action: labfile.ActionKill, Target: "s3", For: 30 * time.Second},
		{Action: labfile.ActionRestart, Target: "s3"},
		{Action: labfile.ActionGC, Target: "s1", Pause: 300 * time.Millisecond},
		{Action: labfile.ActionFail, Target: "s1", For: time.Minute},
		{Action: labfile.ActionRecover, Target: "s1"},
		{Action: labfile.ActionErrors, Target: "s4", Share: 0.1},
		{Action: labfile.ActionRate, Rate: 400},
		{Action: labfile.ActionAlgorithm, Algorithm: "round-robin"},
		{Action: labfile.ActionAddServer, Target: "big"},
		{Action: labfile.ActionRemoveServer, Target: "s2"},
		{Action: labfile.ActionSet, Set: map[string]string{"clients.retries": "2", "clients.budget": "0.1"}},
		{Action: labfile.ActionZoneDown, Target: "a", For: 30 * time.Second},
		{Action: labfile.ActionZoneUp, Target: "a"},
		{Action: labfile.ActionZoneSlow, Target: "b", Speed: 0.5},
		{Action: labfile.ActionZoneRestore, Target: "b"},
		{Action: labfile.ActionLinkDelay, Hop: 40 * time.Millisecond, For: 10 * time.Second},
		{Action: labfile.ActionPartition, For: 10 * time.Second},
		{Action: labfile.ActionHeal},
	}
	seen := map[labfile.Action]bool{}
	for _, ev := range events {
		seen[ev.Action] = true
		text := ev.String()
		back, err := labfile.ParseDrill(strings.Fields(text))
		if err != nil || !reflect.DeepEqual(back, ev) {
			t.Errorf("%q read back as %+v, %v; want %+v", text, back, err, ev)
		}
		js, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var fromJSON labfile.Event
		if err := json.Unmarshal(js, &fromJSON); err != nil || !reflect.DeepEqual(fromJSON, ev) {
			t.Errorf("%s read back as %+v, %v; want %+v", js, fromJSON, err, ev)
		}
	}
	for _, a := range labfile.Actions {
		if !seen[a] {
			t.Errorf("drill %s is not in the round trip", a)
		}
	}
	if got := (labfile.Event{Action: labfile.ActionSet, Set: map[string]string{"b.x": "1", "a.y": "2"}}).String(); got != "set a.y=2 b.x=1" {
		t.Errorf("set's text: %q", got)
	}
	js, _ := json.Marshal(labfile.Event{Action: labfile.ActionGC, Target: "s1", Pause: 300 * time.Millisecond})
	if string(js) != `{"action":"gc","target":"s1","pause":"300ms"}` {
		t.Errorf("gc's JSON: %s", js)
	}
}

// A value that is not of its field's kind is named with the field and the
// text (it was strconv's raw "parsing "abc": invalid syntax").
func TestParseDrillMessages(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"slow", "s3", "speed=abc"}, `speed: "abc" is not a number`},
		{[]string{"errors", "s3", "share=ten"}, `share: "ten" is not a number`},
		{[]string{"gc", "s1", "pause=long"}, `pause: "long" is not a duration like 300ms or 30s`},
		{[]string{"kill", "s1", "for=later"}, `for: "later" is not a duration like 300ms or 30s`},
		{[]string{"slow", "s3", "sped=1"}, `unknown setting "sped": use speed, workers, pause, share, rate, algorithm, hop, for or a dotted lab path`},
		{[]string{"explode"}, `unknown action "explode"`},
		{[]string{"slow", "s1", "s2"}, `"s2": give settings as key=value`},
	} {
		_, err := labfile.ParseDrill(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "strconv") {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// A drill on a running lab is checked now: a target it does not have is
// named with the servers present now (added ones too), not "at 0s".
func TestCheckDrillNamesTheServersNow(t *testing.T) {
	lab := labfile.Default()
	lab.Events = append(lab.Events, labfile.Event{Action: labfile.ActionAddServer, Target: "s6"}) // a drill added it
	ev := labfile.Event{Action: labfile.ActionKill, Target: "s9"}
	err := lab.CheckDrill(&ev)
	want := `target: no server named "s9"; servers now: s1, s2, s3, s4, s5, s6, or all`
	if err == nil || err.Error() != want {
		t.Fatalf("kill s9: %v, want %q", err, want)
	}
	ok := labfile.Event{Action: labfile.ActionKill, Target: "s6", For: 30 * time.Second}
	if err := lab.CheckDrill(&ok); err != nil || ok.For != 30*time.Second {
		t.Fatalf("kill s6 for 30s: %v (%+v)", err, ok)
	}
	if err := lab.CheckDrill(&labfile.Event{Action: labfile.ActionGC, Target: "s1", Pause: time.Second, For: time.Second}); err == nil ||
		!strings.HasPrefix(err.Error(), "for: gc has nothing to undo") {
		t.Fatalf("gc for 1s: %v", err)
	}
}

// A server takes only drills on servers, at once, with their values checked
// as the lab file's; each error names its field.
func TestCheckServerDrill(t *testing.T) {
	for _, tc := range []struct {
		ev    labfile.Event
		field string
	}{
		{labfile.Event{Action: "explode"}, "action"},
		{labfile.Event{Action: labfile.ActionRate, Rate: 5}, "action"},
		{labfile.Event{Action: labfile.ActionSlow, Speed: 200}, "speed"},
		{labfile.Event{Action: labfile.ActionSlow, Speed: 0.5, Share: 0.1}, "share"},
		{labfile.Event{Action: labfile.ActionKill, Target: "s2"}, "target"},
		{labfile.Event{Action: labfile.ActionKill, For: time.Second}, "for"},
		{labfile.Event{Action: labfile.ActionKill, At: time.Second}, "at"},
	} {
		_, err := labfile.CheckServerDrill(tc.ev, "s1", "s1")
		if e, ok := err.(*labfile.Error); !ok || e.Field != tc.field {
			t.Errorf("%+v: %v, want an error at %s", tc.ev, err, tc.field)
		}
	}
	for _, target := range []string{"", "all", "s1", "web"} {
		if d, err := labfile.CheckServerDrill(labfile.Event{Action: labfile.ActionSlow, Target: target, Speed: 0.5}, "s1", "web"); err != nil || d.Action != labfile.ActionSlow {
			t.Errorf("slow %q: %v", target, err)
		}
	}
}

// docs/labfile.md's events table has a row for every drill, naming the
// fields it takes: a drill added to the table is documented, or this fails.
func TestDrillsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/labfile.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## events\n")
	if !ok {
		t.Fatal("docs/labfile.md has no events section")
	}
	section, _, _ = strings.Cut(section, "\n#")
	rows := map[string]string{}
	for _, line := range strings.Split(section, "\n") {
		if cells := strings.Split(line, "|"); len(cells) > 3 && strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			rows[strings.Trim(strings.TrimSpace(cells[1]), "`")] = cells[2]
		}
	}
	for _, d := range labfile.Drills {
		takes, ok := rows[string(d.Action)]
		if !ok {
			t.Errorf("docs/labfile.md's events table has no row for %s", d.Action)
			continue
		}
		for _, f := range d.Fields {
			if !strings.Contains(takes, "`"+f+"`") {
				t.Errorf("docs/labfile.md: %s takes %s, its row says %q", d.Action, f, takes)
			}
		}
	}
}

// Every form of every drill, drawn from the drill table rather than listed
// by hand: each drill with each subset of its optional fields, and time-boxed
// when it has an undo. Each value is a sample of its field's kind, so a
// field of a kind a form cannot carry (add-server's workers, an int, once
// panicked in ParseDrill) fails here. Each form is read back through the
// drill line, the JSON and the lab file, and checked on the default lab.
func TestEveryDrillFormRoundTrips(t *testing.T) {
	sample := map[string]func(ev *labfile.Event){
		"target":    func(ev *labfile.Event) { ev.Target = "s2" },
		"speed":     func(ev *labfile.Event) { ev.Speed = 2 },
		"workers":   func(ev *labfile.Event) { ev.Workers = 4 },
		"pause":     func(ev *labfile.Event) { ev.Pause = 300 * time.Millisecond },
		"share":     func(ev *labfile.Event) { ev.Share = 0.1 },
		"rate":      func(ev *labfile.Event) { ev.Rate = 400 },
		"algorithm": func(ev *labfile.Event) { ev.Algorithm = "round-robin" },
		"set":       func(ev *labfile.Event) { ev.Set = map[string]string{"clients.retries": "2"} },
		"hop":       func(ev *labfile.Event) { ev.Hop = 40 * time.Millisecond },
	}
	forms := 0
	for _, d := range labfile.Drills {
		var optional []string
		for _, f := range d.Fields {
			if _, ok := sample[f]; !ok {
				t.Fatalf("%s takes %s, which this test has no sample value of", d.Action, f)
			}
			if slices.Contains(d.Optional, f) {
				optional = append(optional, f)
			}
		}
		for mask := 0; mask < 1<<len(optional); mask++ {
			for _, timed := range []bool{false, true} {
				if timed && !d.Undoable() {
					continue
				}
				ev := labfile.Event{Action: d.Action}
				for _, f := range d.Fields {
					if i := slices.Index(optional, f); i < 0 || mask&(1<<i) != 0 {
						sample[f](&ev)
					}
				}
				if d.Action == labfile.ActionAddServer {
					ev.Target = "big"
				}
				base := labfile.Default
				if d.Zone { // a zone drill's target is a zone of the lab
					ev.Target = "a"
				}
				if d.NeedsZones { // ... and a link joins zones
					base = zonedDefault
				}
				if timed {
					ev.For = 5 * time.Second
				}
				forms++
				text := ev.String()
				back, err := labfile.ParseDrill(strings.Fields(text))
				if err != nil || !reflect.DeepEqual(back, ev) {
					t.Errorf("%q read back as %+v, %v; want %+v", text, back, err, ev)
				}
				js, err := json.Marshal(ev)
				if err != nil {
					t.Fatalf("%q: %v", text, err)
				}
				var fromJSON labfile.Event
				if err := json.Unmarshal(js, &fromJSON); err != nil || !reflect.DeepEqual(fromJSON, ev) {
					t.Errorf("%s read back as %+v, %v; want %+v", js, fromJSON, err, ev)
				}
				lab := base()
				ev.At = time.Second
				lab.Events = []labfile.Event{ev}
				y, err := labyaml.Marshal(lab)
				if err != nil {
					t.Fatalf("%q: %v", text, err)
				}
				parsed, err := labyaml.Parse("drill.yaml", y)
				if err != nil {
					t.Errorf("%q in a lab file: %v\n%s", text, err, y)
				} else if got := parsed.Events[0]; !reflect.DeepEqual(got, ev) {
					t.Errorf("%q read back from a lab file as %+v; want %+v", text, got, ev)
				}
				drill := back
				if err := base().CheckDrill(&drill); err != nil {
					t.Errorf("%q on the default lab: %v", text, err)
				}
			}
		}
	}
	t.Logf("%d drill forms", forms)
}

// zonedDefault is the default lab in one zone, a, of its own.
func zonedDefault() *labfile.Lab {
	l := labfile.Default()
	l.Zones = []labfile.Zone{{Name: "a"}}
	return l
}
