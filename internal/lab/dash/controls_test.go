package dash

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/shell/state"
)

// decoded is the part of a snapshot's JSON these tests read.
type decoded struct {
	Controls []Control      `json:"controls"`
	Settings map[string]any `json:"settings"`
	Drills   []PageDrill    `json:"drills"`
	Changes  []string       `json:"changes"`
}

func decode(t *testing.T, s *Snapshot) decoded {
	t.Helper()
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var d decoded
	if err := json.Unmarshal(js, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// firstValue is the value of path in lab as set takes it, a server setting
// read in the first group.
func firstValue(t *testing.T, lab *labfile.Lab, path string) string {
	t.Helper()
	if rest, ok := strings.CutPrefix(path, "servers."); ok {
		path = "servers[0]." + rest
	}
	v, err := lab.Get(path)
	if err != nil {
		return ""
	}
	return v
}

// Every setting of the lab file, added to the page's settings, reaches the
// snapshot: its control, with the kind and words the settings table gives
// it and the lab's value, its key in the settings object, and a change of
// it in the banner. The settings are labfile.Leaves, not a list of this
// test's.
func TestASettingAddedReachesTheSnapshot(t *testing.T) {
	saved, savedTable := pageSettings, controlTable
	t.Cleanup(func() { pageSettings, controlTable = saved, savedTable })
	had := map[string]bool{}
	for _, p := range pageSettings {
		had[p.path] = true
	}
	var added []labfile.Leaf
	pageSettings = slices.Clone(pageSettings)
	for _, l := range labfile.Leaves("") {
		if !had[l.Path] {
			added = append(added, l)
			pageSettings = append(pageSettings, pageSetting{path: l.Path, key: l.Path, label: l.Path, group: "test"})
		}
	}
	if len(added) == 0 {
		t.Fatal("every setting already has a control: nothing to add")
	}
	controlTable = sync.OnceValue(func() Controls { return controlsOf(pageSettings) })

	lab := labfile.Default()
	allowed := lab.AllowedAt()
	snap := decode(t, VirtualSnapshot(VirtualView{Lab: lab}))
	byPath := map[string]Control{}
	for _, c := range snap.Controls {
		byPath[c.Path] = c
	}
	zoned := 0 // the settings only a lab with zones shows
	for _, p := range pageSettings {
		if p.zoned {
			zoned++
		}
	}
	if len(snap.Controls) != len(pageSettings)-zoned {
		t.Errorf("%d controls in the snapshot of a lab without zones, want %d (%d need zones)", len(snap.Controls), len(pageSettings)-zoned, zoned)
	}
	var word *labfile.Leaf
	for i, l := range added {
		c, ok := byPath[l.Path]
		if !ok {
			t.Errorf("%s added to the page's settings: not in the snapshot's controls", l.Path)
			continue
		}
		if want := firstValue(t, lab, l.Path); c.Value != want {
			t.Errorf("%s: value %q, want the lab's %q", l.Path, c.Value, want)
		}
		if w := allowed[l.Path].Words; len(w) > 0 && l.Type.Kind() == reflect.String {
			if c.Kind != "word" || !slices.Equal(c.Words, w) {
				t.Errorf("%s: kind %s, words %v; the table allows %v", l.Path, c.Kind, c.Words, w)
			}
			if word == nil && len(w) > 1 {
				word = &added[i]
			}
		}
		if _, ok := snap.Settings[l.Path]; !ok {
			t.Errorf("%s: not in the snapshot's settings object", l.Path)
		}
	}
	if word == nil {
		t.Fatal("no setting of words to change")
	}
	// The banner: a change of the added setting, told against the start.
	now := lab.Clone()
	was := firstValue(t, lab, word.Path)
	var to string
	for _, w := range allowed[word.Path].Words {
		if w != was && now.Apply(word.Path, w) == nil {
			to = w
			break
		}
	}
	if to == "" {
		t.Fatalf("%s: no other word applies", word.Path)
	}
	first := controlsNow(lab, &Reading{})
	got := decode(t, VirtualSnapshot(VirtualView{Lab: now, First: first})).Changes
	if want := word.Path + " " + to + " (was " + was + ")"; !slices.Contains(got, want) {
		t.Errorf("changes %q, want %q among them", got, want)
	}
}

// The controls read the processes where they report a setting: the lb's
// algorithm and tier settings, the backend's queue and limiter; the
// settings object follows, with a duration in ms as before.
func TestControlsReadTheProcesses(t *testing.T) {
	lab := labfile.Default()
	reported := lab.Clone()
	if err := reported.Apply("balancers.timeout", "2s"); err != nil {
		t.Fatal(err)
	}
	lb := state.LB{Name: "lb1", Algorithm: "round-robin", Settings: state.SettingsOf(reported)}
	backend := state.Backend{Name: "s1", Queue: state.Queue{Capacity: 7, Discipline: "lifo", DropExpired: true}, Limiter: state.Limiter{Kind: "none"}}
	snap := decode(t, VirtualSnapshot(VirtualView{Lab: lab, Now: VirtualReading{At: time.Second,
		Balancers: []state.LB{lb}, Servers: []state.Backend{backend}}}))
	want := map[string]string{"balancers.algorithm": "round-robin", "balancers.timeout": "2s", "servers.queue.capacity": "7",
		"servers.queue.discipline": "lifo", "servers.drop_expired": "true", "servers.limiter.kind": ""}
	for _, c := range snap.Controls {
		if w, ok := want[c.Path]; ok && c.Value != w {
			t.Errorf("%s: %q, want the processes' %q", c.Path, c.Value, w)
		}
	}
	s := snap.Settings
	if s["algorithm"] != "round-robin" || s["timeout_ms"] != 2000.0 || s["queue_capacity"] != 7.0 || s["discipline"] != "lifo" ||
		s["drop_expired"] != true || s["limiter"] != "" || s["client_side"] != false || s["rate"] != 200.0 {
		t.Errorf("settings object: %v", s)
	}
}

// A setting that needs zones (balancers.locality.policy) has its control
// only in a lab with zones, with the words the settings table gives it.
func TestZonedControlsOnlyWithZones(t *testing.T) {
	flat := decode(t, VirtualSnapshot(VirtualView{Lab: labfile.Default()}))
	for _, c := range flat.Controls {
		if c.Path == "balancers.locality.policy" {
			t.Errorf("a lab without zones shows the locality control")
		}
	}
	lab, err := labyaml.Parse("z.yaml", []byte("zones: [{name: a}, {name: b}]\nservers:\n  - {count: 2, zone: a}\n  - {count: 2, zone: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	zoned := decode(t, VirtualSnapshot(VirtualView{Lab: lab}))
	found := false
	for _, c := range zoned.Controls {
		if c.Path == "balancers.locality.policy" {
			found = true
			if c.Kind != "word" || c.Value != "none" || !slices.Equal(c.Words, lab.AllowedAt()[c.Path].Words) {
				t.Errorf("the locality control: kind %s, value %q, words %v", c.Kind, c.Value, c.Words)
			}
		}
	}
	if !found || len(zoned.Controls) != len(flat.Controls)+1 {
		t.Errorf("a lab with zones: %d controls (locality among them: %v), one more than without (%d)", len(zoned.Controls), found, len(flat.Controls))
	}
}
