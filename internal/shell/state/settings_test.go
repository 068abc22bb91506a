package state

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// The typed fields of Settings are a reading of the JSON, not a second
// schema: each, by its JSON name, is a setting of the API (APISettings),
// and its Go type is what the JSON of that setting's leaf decodes into.
func TestSettingsFields(t *testing.T) {
	api := map[string]reflect.Type{}
	for _, a := range APISettings {
		api[a.Name] = a.Type
	}
	var walk func(typ reflect.Type, prefix string)
	walk = func(typ reflect.Type, prefix string) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			name := prefix + strings.Split(f.Tag.Get("json"), ",")[0]
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, name+".")
				continue
			}
			leaf, ok := api[name]
			if !ok {
				t.Errorf("Settings field %s (%s): the API has no setting %s", f.Name, f.Type, name)
				continue
			}
			if want := jsonKind(leaf); f.Type.Kind() != want {
				t.Errorf("Settings field %s is a %s; setting %s (a %s) is a JSON %s", f.Name, f.Type, name, leaf, want)
			}
		}
	}
	walk(reflect.TypeOf(Settings{}), "")
}

// jsonKind is the Go kind the JSON of a leaf of type t decodes into.
func jsonKind(t reflect.Type) reflect.Kind {
	switch t.Kind() {
	case reflect.Bool:
		return reflect.Bool
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		if t != reflect.TypeOf(time.Duration(0)) {
			return reflect.Float64
		}
	}
	return reflect.String // durations, words, text values
}

// Settings decoded from an answer (the live lab reading GET /admin/state)
// write every setting again, not only those with a field: the dashboard's
// snapshot shows a live balancer's settings as the virtual one's. And
// Value reads each setting of the API by its name, as the JSON has it.
func TestDecodedSettingsKeepEverySetting(t *testing.T) {
	lab := labfile.Default()
	lab.Balancers.Replacement = true
	lab.Balancers.FailurePenalty = 30 * time.Millisecond
	lab.Balancers.Breaker.Enabled = true
	want, err := json.Marshal(SettingsOf(lab))
	if err != nil {
		t.Fatal(err)
	}
	var answer LB
	if err := json.Unmarshal([]byte(`{"name":"lb1","settings":`+string(want)+`}`), &answer); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(answer.Settings)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("decoded and written again:\n got %s\nwant %s", got, want)
	}
	if !answer.Settings.Breaker.Enabled || answer.Settings.Timeout != "0s" {
		t.Errorf("the fields: %+v", answer.Settings)
	}
	for name, v := range map[string]any{"replacement": true, "failure_penalty": "30ms", "breaker.window": 20.0, "hop": "5ms"} {
		if got, ok := answer.Settings.Value(name); !ok || got != v {
			t.Errorf("Value(%q) = %v, %v; want %v", name, got, ok, v)
		}
	}
	for _, name := range []string{"breaker", "nope", "breaker.window.x"} {
		if v, ok := answer.Settings.Value(name); ok {
			t.Errorf("Value(%q) = %v; want none (a section or no setting)", name, v)
		}
	}
	for _, a := range APISettings {
		if _, ok := answer.Settings.Value(a.Name); !ok {
			t.Errorf("Value(%q): the JSON does not hold it", a.Name)
		}
	}
}
