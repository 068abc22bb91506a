package labyaml

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

func TestMarshalRoundTrips(t *testing.T) {
	lab := labfile.Default()
	if err := lab.Apply("clients.hedge", "p95"); err != nil {
		t.Fatal(err)
	}
	lab.Events = []labfile.Event{{At: 2 * time.Second, Action: "slow", Target: "s2", Speed: 0.25}}
	lab.Compare = []labfile.Setting{{Name: "b", Set: map[string]string{"clients.budget": "0.1"}}}
	data, err := Marshal(lab)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("round-trip.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(lab, back) {
		t.Fatalf("round trip changed the lab:\n%s", data)
	}
}

// TestMarshalWritesEachDrillAsWritten: a saved lab file writes each event
// as a person writes it, at, action, the target, the fields its drill
// takes (an optional one only when given) and for, not every field of
// every action at its zero; every drill is covered. It parses back to the
// same lab, which is also the lab of the file as it was written before,
// every field at its zero, so lab sim gives the same report on both.
func TestMarshalWritesEachDrillAsWritten(t *testing.T) {
	const head = "name: drills\nduration: 30s\nzones: [{name: a}, {name: b}]\nclients: {rate: 200}\nservers: [{count: 5, workers: 4}]\nevents:\n"
	events := []struct{ given, saved string }{
		{"{at: 1s, action: slow, target: s2, speed: 0.25, for: 2s}", "- at: 1s\n  action: slow\n  target: s2\n  speed: 0.25\n  for: 2s\n"},
		{"{at: 4s, action: restore, target: s2}", "- at: 4s\n  action: restore\n  target: s2\n"},
		{"{at: 5s, action: kill, target: s3}", "- at: 5s\n  action: kill\n  target: s3\n"},
		{"{at: 6s, action: restart, target: s3}", "- at: 6s\n  action: restart\n  target: s3\n"},
		{"{at: 7s, action: gc, target: s1, pause: 300ms}", "- at: 7s\n  action: gc\n  target: s1\n  pause: 300ms\n"},
		{"{at: 8s, action: fail, target: s4}", "- at: 8s\n  action: fail\n  target: s4\n"},
		{"{at: 9s, action: recover, target: s4}", "- at: 9s\n  action: recover\n  target: s4\n"},
		{"{at: 10s, action: errors, target: s1, share: 0}", "- at: 10s\n  action: errors\n  target: s1\n  share: 0\n"},
		{"{at: 10.5s, action: errors, target: s1, share: 0.2}", "- at: 10.5s\n  action: errors\n  target: s1\n  share: 0.2\n"},
		{"{at: 11s, action: rate, rate: 300}", "- at: 11s\n  action: rate\n  rate: 300\n"},
		{"{at: 12s, action: algorithm, algorithm: least-outstanding}", "- at: 12s\n  action: algorithm\n  algorithm: least-outstanding\n"},
		{"{at: 13s, action: add-server}", "- at: 13s\n  action: add-server\n  target: s6\n"},
		{"{at: 14s, action: add-server, target: s9, speed: 2, workers: 3}", "- at: 14s\n  action: add-server\n  target: s9\n  speed: 2\n  workers: 3\n"},
		{"{at: 15s, action: remove-server, target: s9}", "- at: 15s\n  action: remove-server\n  target: s9\n"},
		{"{at: 16s, action: set, set: {clients.retries: \"2\", clients.budget: \"0.1\"}}", "- at: 16s\n  action: set\n  set:\n    clients.budget: \"0.1\"\n    clients.retries: \"2\"\n"},
		{"{at: 17s, action: zone-down, target: a, for: 1s}", "- at: 17s\n  action: zone-down\n  target: a\n  for: 1s\n"},
		{"{at: 19s, action: zone-up, target: a}", "- at: 19s\n  action: zone-up\n  target: a\n"},
		{"{at: 20s, action: zone-slow, target: b, speed: 0.5}", "- at: 20s\n  action: zone-slow\n  target: b\n  speed: 0.5\n"},
		{"{at: 21s, action: zone-restore, target: b}", "- at: 21s\n  action: zone-restore\n  target: b\n"},
		{"{at: 22s, action: link-delay, hop: 40ms, for: 2s}", "- at: 22s\n  action: link-delay\n  hop: 40ms\n  for: 2s\n"},
		{"{at: 25s, action: partition}", "- at: 25s\n  action: partition\n"},
		{"{at: 26s, action: heal}", "- at: 26s\n  action: heal\n"},
	}
	var given, want strings.Builder
	covered := map[labfile.Action]bool{}
	for _, e := range events {
		given.WriteString("  - " + e.given + "\n")
		want.WriteString(e.saved)
	}
	lab, err := Parse("drills.yaml", []byte(head+given.String()))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range lab.Events {
		covered[ev.Action] = true
	}
	for _, d := range labfile.Drills {
		if !covered[d.Action] {
			t.Errorf("no event of %s here", d.Action)
		}
	}
	data, err := Marshal(lab)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, "\nevents:\n"), strings.Index(text, "\nreport:")
	if i < 0 || j < i {
		t.Fatalf("no events in the saved lab:\n%s", text)
	}
	if got := text[i+len("\nevents:\n") : j+1]; got != want.String() {
		t.Errorf("the saved events:\n%s\nwant:\n%s", got, want.String())
	}
	back, err := Parse("saved.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !reflect.DeepEqual(lab, back) {
		t.Errorf("the saved lab parses back to another lab:\n%s", data)
	}

	// the form it replaces: every field of the event written, at its zero
	verbose := text[:i] + "\nevents:\n" + `- at: 5s
  action: kill
  target: s3
  speed: 0.0
  workers: 0
  pause: 0s
  share: 0.0
  rate: 0.0
  algorithm: ""
  set: {}
  for: 0s
` + text[j+1:]
	old, err := Parse("before.yaml", []byte(verbose))
	if err != nil {
		t.Fatal(err)
	}
	back.Events = []labfile.Event{lab.Events[2]}
	if !reflect.DeepEqual(old.Events, back.Events) {
		t.Errorf("the kill written whole reads %+v, written as a person does %+v", old.Events, back.Events)
	}
}
