package lb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/shell/state"
)

// The settings API serves every balancer setting the lab file declares:
// each leaf under balancers (but the tier's count and the algorithm, which
// has its own endpoint) and the two hops, by its name under its section.
// GET /admin/state shows exactly those, and PUT /admin/settings takes each
// one and shows it back. The list is the lab file's (labfile.Leaves), not
// the API's, so a setting the API dropped fails here.
func TestEverySettingRoundTrips(t *testing.T) {
	want := map[string]string{"hop": "network.hop", "jitter": "network.jitter"} // API name -> lab path
	for _, l := range labfile.Leaves("balancers") {
		if !state.NotSettings[l.Path] {
			want[strings.TrimPrefix(l.Path, "balancers.")] = l.Path
		}
	}
	if len(state.NotSettings) > 6 { // count, algorithm, and what runs the tier: kind and command's three
		t.Errorf("the API leaves out %d settings: %v", len(state.NotSettings), state.NotSettings)
	}
	f1, f2 := startFake(t, "s1"), startFake(t, "s2")
	lab := zonedLab(t)
	_, c := startLB(t, lab, f1, f2)

	var st struct{ Settings json.RawMessage }
	if err := json.Unmarshal([]byte(c.call(t, "GET", "/admin/state", "").body), &st); err != nil {
		t.Fatal(err)
	}
	initial := string(st.Settings)
	shown := map[string]any{}
	flattenJSON(t, "", initial, "", shown)
	for name := range want {
		if _, ok := shown[name]; !ok {
			t.Errorf("GET /admin/state: no setting %s (%s)", name, want[name])
		}
	}
	for name := range shown {
		if _, ok := want[name]; !ok {
			t.Errorf("GET /admin/state shows %s, which is no balancer setting of the lab file", name)
		}
	}

	// In the lab file's order, each setting takes a value it does not have,
	// on top of the ones before (aperture_load needs an aperture).
	allowed := lab.AllowedAt()
	for _, l := range append(labfile.Leaves("network"), labfile.Leaves("balancers")...) {
		name := ""
		for n, p := range want {
			if p == l.Path {
				name = n
			}
		}
		if name == "" {
			continue
		}
		v, ok := otherValue(lab, l, allowed[l.Path])
		if !ok { // one set before rules it out (a subset, an aperture): start again from the first settings
			if a := c.call(t, "PUT", "/admin/settings", initial); a.status != 200 {
				t.Fatalf("PUT of the settings GET showed: %d %s", a.status, a.body)
			}
			lab = zonedLab(t)
			v, ok = otherValue(lab, l, allowed[l.Path])
		}
		if !ok {
			t.Errorf("%s: found no other valid value to set (give the setting a check in labfile's validation)", l.Path)
			continue
		}
		body := jsonAt(name, v)
		a := c.call(t, "PUT", "/admin/settings", body)
		if labfile.FixedAtRunTime(l.Path) != "" { // shown, and refused as a set event refuses it
			if a.status != 400 || !strings.Contains(a.body, l.Path+": is fixed for a run") {
				t.Errorf("PUT %s: %d %s, want 400: fixed for a run", body, a.status, a.body)
			}
			continue
		}
		if a.status != 200 {
			t.Errorf("PUT %s: %d %s", body, a.status, a.body)
			continue
		}
		if err := lab.Apply(l.Path, labText(v)); err != nil {
			t.Fatal(err)
		}
		got := map[string]any{}
		flattenJSON(t, "", a.body, "", got)
		if w := apiJSON(v); !reflect.DeepEqual(got[name], w) {
			t.Errorf("PUT %s: the answer shows %s = %v, want %v", body, name, got[name], w)
		}
		state := map[string]any{}
		flattenJSON(t, "", c.call(t, "GET", "/admin/state", "").body, "settings", state)
		if !reflect.DeepEqual(state, got) {
			t.Errorf("PUT %s: GET /admin/state shows\n%v\nthe answer\n%v", body, state, got)
		}
	}
}

// otherValue finds a value of leaf l other than lab's that the lab file
// takes on top of lab: from its range or its words, or the other boolean.
// zonedLab is testLab with two zones, s1 in a and s2 in b, so that the
// settings that need zones (balancers.locality) take another value too.
func zonedLab(t *testing.T) *labfile.Lab {
	t.Helper()
	lab, err := labyaml.Parse("zoned.yaml", []byte("network: {hop: 0s}\nzones: [{name: a}, {name: b}]\nservers:\n  - {count: 1, zone: a}\n  - {count: 1, zone: b}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

func otherValue(lab *labfile.Lab, l labfile.Leaf, a labfile.Allowed) (any, bool) {
	cur, err := lab.Value(l.Path)
	if err != nil {
		return nil, false
	}
	var tries []any
	switch r := a.Range.(type) {
	case labfile.Range[int]:
		tries = []any{r.Min + 1, r.Min, r.Max}
	case labfile.Range[float64]:
		tries = []any{(r.Min + r.Max) / 2, r.Max, r.Min}
	case labfile.Range[time.Duration]:
		tries = []any{r.Min + time.Millisecond, r.Max, r.Min}
	}
	for _, w := range a.Words {
		tries = append(tries, w)
	}
	if l.Type.Kind() == reflect.Bool {
		tries = append(tries, !cur.(bool))
	}
	for _, v := range tries {
		if labText(v) == labText(cur) {
			continue
		}
		if err := lab.Clone().Apply(l.Path, labText(v)); err == nil {
			return v, true
		}
	}
	return nil, false
}

// labText writes v as a lab file's value.
func labText(v any) string {
	if d, ok := v.(time.Duration); ok {
		return d.String()
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return rv.String()
	}
	return fmt.Sprint(v)
}

// apiJSON is v as the API writes it, decoded as any: durations and words
// as text.
func apiJSON(v any) any {
	var out any
	b, _ := json.Marshal(v)
	if _, ok := v.(time.Duration); ok || reflect.ValueOf(v).Kind() == reflect.String {
		b, _ = json.Marshal(labText(v))
	}
	json.Unmarshal(b, &out)
	return out
}

// jsonAt writes {"a":{"b":v}} for the dotted name a.b.
func jsonAt(name string, v any) string {
	b, _ := json.Marshal(apiJSON(v))
	s := string(b)
	parts := strings.Split(name, ".")
	for _, p := range slices.Backward(parts) {
		s = fmt.Sprintf("{%q:%s}", p, s)
	}
	return s
}

// flattenJSON puts the leaves of body (of its member at, when at is not
// "") into out under their dotted names.
func flattenJSON(t *testing.T, prefix, body, at string, out map[string]any) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	if at != "" {
		b, _ := json.Marshal(m[at])
		flattenJSON(t, prefix, string(b), "", out)
		return
	}
	for k, v := range m {
		name := strings.TrimPrefix(prefix+"."+k, ".")
		if sub, ok := v.(map[string]any); ok {
			b, _ := json.Marshal(sub)
			flattenJSON(t, name, string(b), "", out)
			continue
		}
		out[name] = v
	}
}

// PUT /admin/settings refuses, with a 400 naming the field and changing
// nothing, a field that is no setting, a value of the wrong JSON type and
// a section that is not an object; null leaves a setting as it is.
func TestSettingsBodyIsChecked(t *testing.T) {
	f := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f)
	before := c.call(t, "GET", "/admin/state", "").body
	for body, want := range map[string]string{
		`{"speed":2}`:                        "speed: no such setting",
		`{"breaker":{"windows":20}}`:         "breaker.windows: no such setting",
		`{"count":2}`:                        "count: no such setting",
		`{"algorithm":"random"}`:             "algorithm: no such setting",
		`{"breaker":5}`:                      "breaker: want an object of its settings",
		`{"vnodes":"many"}`:                  "vnodes: want a whole number",
		`{"breaker":{"enabled":"yes"}}`:      "breaker.enabled: want true or false",
		`{"decay":1000}`:                     `decay: want a duration as text`,
		`{"load":true}`:                      "load: want text",
		`{"load":"shared"}`:                  "load: balancers.load: is fixed for a run",
		`{"timeout":"1s","load":"shared"}`:   "load: balancers.load: is fixed for a run",
		`{"timeout":"1s","breaker":{"x":1}}`: "breaker.x: no such setting",
	} {
		a := c.call(t, "PUT", "/admin/settings", body)
		if a.status != 400 || !strings.Contains(a.body, want) {
			t.Errorf("PUT %s: %d %s, want 400 with %q", body, a.status, a.body, want)
		}
	}
	if after := c.call(t, "GET", "/admin/state", "").body; after != before {
		t.Errorf("refused bodies changed the state:\n%s\n%s", before, after)
	}
	if a := c.call(t, "POST", "/admin/set", `{"path":"balancers.load","value":"shared"}`); a.status != 400 || !strings.Contains(a.body, "is fixed for a run") {
		t.Errorf("POST /admin/set balancers.load=shared: %d %s, want 400: fixed for a run", a.status, a.body)
	}
	if a := c.call(t, "PUT", "/admin/settings", `{"load":"local"}`); a.status != 200 {
		t.Errorf("PUT the load mode it has: %d %s, want 200 (no change)", a.status, a.body)
	}
	a := c.call(t, "PUT", "/admin/settings", `{"timeout":null,"breaker":{"window":null,"probes":4}}`)
	var s Settings
	if err := json.Unmarshal([]byte(a.body), &s); err != nil || a.status != 200 || s.Timeout != "0s" ||
		!hasSetting(s, "breaker.window", 20.0) || !hasSetting(s, "breaker.probes", 4.0) {
		t.Errorf("PUT with nulls: %d %s", a.status, a.body)
	}
}
