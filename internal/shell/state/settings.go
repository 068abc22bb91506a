package state

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// APISetting is one setting of the API: its name there (dotted for a
// field of a section: breaker.window) and the lab-file leaf it is.
type APISetting struct {
	Name string
	labfile.Leaf
}

// NotSettings are the balancers.* leaves the settings API leaves out.
var NotSettings = map[string]bool{"balancers.count": true, "balancers.algorithm": true,
	// what runs the tier: chosen before the processes start, not a knob of a running lb
	"balancers.kind": true, "balancers.command.config": true, "balancers.command.file": true, "balancers.command.run": true}

// APISettings lists the settings in the API's order: the hops, then the
// balancer tier's settings in the lab file's order.
var APISettings = func() []APISetting {
	var out []APISetting
	for _, l := range labfile.Leaves("network") {
		if l.Path == "network.hop" || l.Path == "network.jitter" {
			out = append(out, APISetting{strings.TrimPrefix(l.Path, "network."), l})
		}
	}
	for _, l := range labfile.Leaves("balancers") {
		if !NotSettings[l.Path] {
			out = append(out, APISetting{strings.TrimPrefix(l.Path, "balancers."), l})
		}
	}
	return out
}()

// settingsJSON writes lab's settings as the API shows them: sections as
// objects, durations and words as text, numbers and booleans as such.
func settingsJSON(lab *labfile.Lab) []byte {
	var root object
	for _, a := range APISettings {
		v, err := lab.Value(a.Path)
		if err != nil { // a leaf of labfile.Leaves always reads
			panic("state: " + err.Error())
		}
		switch x := v.(type) {
		case time.Duration:
			v = x.String()
		case encoding.TextMarshaler:
			b, _ := x.MarshalText()
			v = string(b)
		default:
			if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
				v = rv.String() // a word type: LoadMode, HashOn, ...
			}
		}
		root.put(strings.Split(a.Name, "."), v)
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic("state: settings: " + err.Error())
	}
	return b
}

// object is a JSON object that keeps its members' order.
type object []member

type member struct {
	key string
	val any // a scalar, or an object
}

// put sets the member at path, making the sections on the way.
func (o *object) put(path []string, v any) {
	if len(path) == 1 {
		*o = append(*o, member{path[0], v})
		return
	}
	for i := range *o {
		if m := &(*o)[i]; m.key == path[0] {
			sub := m.val.(object)
			sub.put(path[1:], v)
			m.val = sub
			return
		}
	}
	var sub object
	sub.put(path[1:], v)
	*o = append(*o, member{path[0], sub})
}

func (o object) MarshalJSON() ([]byte, error) {
	buf := []byte{'{'}
	for i, m := range o {
		if i > 0 {
			buf = append(buf, ',')
		}
		k, _ := json.Marshal(m.key)
		v, err := json.Marshal(m.val)
		if err != nil {
			return nil, err
		}
		buf = append(append(append(buf, k...), ':'), v...)
	}
	return append(buf, '}'), nil
}

// SettingsOf is lab's settings: the JSON, and the fields read from it.
func SettingsOf(lab *labfile.Lab) Settings {
	var s Settings
	if err := json.Unmarshal(settingsJSON(lab), &s); err != nil {
		panic("state: settings: " + err.Error())
	}
	return s
}
