package lb

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// Settings are the balancer knobs as GET /admin/state and PUT
// /admin/settings show them: every lab-file leaf under balancers but
// balancers.count and balancers.algorithm (the tier's size, and the
// algorithm, which has its own endpoint), by its name under balancers, and
// the hops this process injects (network.hop and network.jitter as hop and
// jitter); durations and words as text. The JSON is written from the lab
// by walking labfile.Leaves (settingsJSON), so a balancer setting added to
// the lab file is shown and taken with no edit here.
//
// The fields are a typed reading of that JSON for Go callers (internal/lab,
// the tests), decoded from it (settingsOf), so they cannot disagree with
// it; a setting without a field here is still in the JSON.
type Settings struct {
	Timeout      string            `json:"timeout"`
	Hop          string            `json:"hop"`
	Jitter       string            `json:"jitter"`
	Load         string            `json:"load"`
	Refresh      string            `json:"refresh"`
	HashOn       string            `json:"hash_on"`
	Subset       int               `json:"subset"`
	Aperture     int               `json:"aperture"`
	ApertureLoad float64           `json:"aperture_load"`
	Choices      int               `json:"choices"`
	VNodes       int               `json:"vnodes"`
	Epsilon      float64           `json:"epsilon"`
	Decay        string            `json:"decay"`
	Breaker      BreakerSettings   `json:"breaker"`
	Outlier      OutlierSettings   `json:"outlier"`
	SlowStart    SlowStartSettings `json:"slow_start"`
	Health       HealthSettings    `json:"health"`

	// raw is the JSON the fields were read from, written again by
	// MarshalJSON (with every setting, those without a field too); "" for a
	// Settings built or decoded by a caller.
	raw string
}

// BreakerSettings is balancers.breaker.
type BreakerSettings struct {
	Enabled   bool    `json:"enabled"`
	Window    int     `json:"window"`
	Threshold float64 `json:"threshold"`
	Open      string  `json:"open"`
	Probes    int     `json:"probes"`
}

// OutlierSettings is balancers.outlier.
type OutlierSettings struct {
	Enabled             bool    `json:"enabled"`
	ConsecutiveFailures int     `json:"consecutive_failures"`
	Interval            string  `json:"interval"`
	BaseEjection        string  `json:"base_ejection"`
	MaxEjection         string  `json:"max_ejection"`
	MaxEjectionShare    float64 `json:"max_ejection_share"`
	SuccessRateK        float64 `json:"success_rate_k"`
	LatencyK            float64 `json:"latency_k"`
	MinRequests         int     `json:"min_requests"`
}

// SlowStartSettings is balancers.slow_start.
type SlowStartSettings struct {
	Enabled    bool    `json:"enabled"`
	Window     string  `json:"window"`
	Floor      float64 `json:"floor"`
	Aggression float64 `json:"aggression"`
}

// HealthSettings is balancers.health.
type HealthSettings struct {
	Enabled  bool   `json:"enabled"`
	Interval string `json:"interval"`
	Fails    int    `json:"fails"`
	Passes   int    `json:"passes"`
}

// MarshalJSON writes the JSON the settings were read from, when they were
// (settingsOf), else the fields.
func (s Settings) MarshalJSON() ([]byte, error) {
	if s.raw != "" {
		return []byte(s.raw), nil
	}
	type fields Settings // without this method
	return json.Marshal(fields(s))
}

// apiSetting is one setting of the API: its name there (dotted for a
// field of a section: breaker.window) and the lab-file leaf it is.
type apiSetting struct {
	name string
	labfile.Leaf
}

// notSettings are the balancers.* leaves the settings API leaves out.
var notSettings = map[string]bool{"balancers.count": true, "balancers.algorithm": true}

// apiSettings lists the settings in the API's order: the hops, then the
// balancer tier's settings in the lab file's order.
var apiSettings = func() []apiSetting {
	var out []apiSetting
	for _, l := range labfile.Leaves("network") {
		if l.Path == "network.hop" || l.Path == "network.jitter" {
			out = append(out, apiSetting{strings.TrimPrefix(l.Path, "network."), l})
		}
	}
	for _, l := range labfile.Leaves("balancers") {
		if !notSettings[l.Path] {
			out = append(out, apiSetting{strings.TrimPrefix(l.Path, "balancers."), l})
		}
	}
	return out
}()

// settingsJSON writes lab's settings as the API shows them: sections as
// objects, durations and words as text, numbers and booleans as such.
func settingsJSON(lab *labfile.Lab) []byte {
	var root object
	for _, a := range apiSettings {
		v, err := lab.Value(a.Path)
		if err != nil { // a leaf of labfile.Leaves always reads
			panic("lb: " + err.Error())
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
		root.put(strings.Split(a.name, "."), v)
	}
	b, err := json.Marshal(root)
	if err != nil {
		panic("lb: settings: " + err.Error())
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

// settingsOf is lab's settings: the JSON, and the fields read from it.
func settingsOf(lab *labfile.Lab) Settings {
	raw := settingsJSON(lab)
	var s Settings
	if err := json.Unmarshal(raw, &s); err != nil {
		panic("lb: settings: " + err.Error())
	}
	s.raw = string(raw)
	return s
}

// change is one lab-file assignment; field is what the caller called it.
type change struct{ field, path, value string }

// settingsChanges reads the body of PUT /admin/settings: every setting
// optional (null is left out), a section an object of its settings. It
// returns the assignments in the API's order, or an error naming the
// first field that is unknown or of the wrong JSON type.
func settingsChanges(body map[string]json.RawMessage) ([]change, error) {
	given := map[string]json.RawMessage{}
	if err := flatten("", body, given); err != nil {
		return nil, err
	}
	var cs []change
	for _, a := range apiSettings {
		raw, ok := given[a.name]
		if !ok {
			continue
		}
		delete(given, a.name)
		text, err := settingText(a.Type, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %s (%s)", a.name, err, a.Path)
		}
		cs = append(cs, change{a.name, a.Path, text})
	}
	if len(given) > 0 {
		names := make([]string, 0, len(given))
		for n := range given {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%s: no such setting; the settings are %s", names[0], settingNames())
	}
	return cs, nil
}

// flatten puts every non-null member of body into out under its dotted
// name; a member named like a section must be an object.
func flatten(prefix string, body map[string]json.RawMessage, out map[string]json.RawMessage) error {
	for k, raw := range body {
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		raw = bytes.TrimSpace(raw)
		if string(raw) == "null" {
			continue
		}
		if !isSection(name) {
			out[name] = raw
			continue
		}
		var sub map[string]json.RawMessage
		if err := json.Unmarshal(raw, &sub); err != nil {
			return fmt.Errorf("%s: want an object of its settings, got %s", name, raw)
		}
		if err := flatten(name, sub, out); err != nil {
			return err
		}
	}
	return nil
}

// isSection reports whether name is a section of the settings (breaker).
func isSection(name string) bool {
	for _, a := range apiSettings {
		if strings.HasPrefix(a.name, name+".") {
			return true
		}
	}
	return false
}

// settingNames lists the settings' names, for an error.
func settingNames() string {
	names := make([]string, len(apiSettings))
	for i, a := range apiSettings {
		names[i] = a.name
	}
	return strings.Join(names, ", ")
}

// settingText turns a JSON value into the lab-file text of a setting of
// type t: text for durations and words, a number for numbers, true or
// false for booleans (the lab file then parses and checks it).
func settingText(t reflect.Type, raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("not JSON: %s", raw)
	}
	switch x := v.(type) {
	case string:
		if t.Kind() == reflect.String || t == durationType || reflect.PointerTo(t).Implements(textUnmarshaler) {
			return x, nil
		}
	case float64:
		switch t.Kind() {
		case reflect.Int, reflect.Uint64, reflect.Float64:
			return string(raw), nil
		}
	case bool:
		if t.Kind() == reflect.Bool {
			return strconv.FormatBool(x), nil
		}
	}
	return "", fmt.Errorf("want %s, got %s", jsonWant(t), raw)
}

var (
	durationType    = reflect.TypeOf(time.Duration(0))
	textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// jsonWant says which JSON value a setting of type t takes.
func jsonWant(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Uint64:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	}
	if t == durationType {
		return `a duration as text, like "100ms"`
	}
	return "text"
}

// ownsPath reports whether a lab path is one this process applies.
func ownsPath(path string) bool {
	return strings.HasPrefix(path, "balancers.") || path == "network.hop" || path == "network.jitter"
}

// nameField puts the request's field name in front of an error about the
// lab path it sets ("timeout: balancers.timeout: must be ..."), so the
// caller sees both the name they sent and the setting it is.
func nameField(cs []change, err error) error {
	for _, c := range cs {
		if c.field != c.path && strings.HasPrefix(err.Error(), c.path+":") {
			return fmt.Errorf("%s: %w", c.field, err)
		}
	}
	return err
}

// badInput is an error answered 400.
type badInput struct{ error }

func (e badInput) Unwrap() error { return e.error }

// change applies assignments to a copy of the lab and, if all parse and the
// lab stays valid, makes it current; otherwise nothing changes.
func (l *LB) change(cs []change) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	nl := l.lab.Clone()
	pairs := make([][2]string, len(cs))
	for i, c := range cs {
		pairs[i] = [2]string{c.path, c.value}
	}
	if err := nl.ApplyAll(pairs); err != nil {
		return badInput{nameField(cs, err)}
	}
	was := l.lab.Balancers.Algorithm
	if err := l.commit(nl); err != nil {
		return badInput{err}
	}
	l.announce(cs, was)
	return nil
}

// commit makes nl the lab and brings the pipeline in line with it through
// policy.Balancer.Reconfigure, as the simulator does: what did not change
// (load figures, breaker states, ejections, ramps) stays. Caller holds mu.
func (l *LB) commit(nl *labfile.Lab) error {
	if err := l.precheck(nl); err != nil {
		return err
	}
	if err := l.bal.Reconfigure(BalancerConfig(nl, l.cfg.Index)); err != nil {
		return err
	}
	old := l.lab
	l.lab = nl
	l.derive()
	if old.Balancers.Health.Enabled && !nl.Balancers.Health.Enabled {
		l.healAll()
	}
	kick(l.kickLoad)
	kick(l.kickCheck)
	return nil
}

// precheck finds what the pipeline cannot check itself: shared load needs
// every backend's admin address to poll.
func (l *LB) precheck(nl *labfile.Lab) error {
	if nl.Balancers.Load == labfile.SharedLoad {
		for _, b := range l.backends {
			if b.present && b.Admin == "" {
				return fmt.Errorf("load: backend %s has no admin address to poll /load from", b.Name)
			}
		}
	}
	return nil
}

// announce logs applied changes: an algorithm switch as its own kind.
func (l *LB) announce(cs []change, was string) {
	now := l.nowLocked()
	var parts []string
	for _, c := range cs {
		if c.path == "balancers.algorithm" {
			l.publish(now, "algorithm", "algorithm: "+was+" -> "+l.lab.Balancers.Algorithm)
			continue
		}
		parts = append(parts, c.path+"="+c.value)
	}
	if len(parts) > 0 {
		l.publish(now, "settings", "settings: "+strings.Join(parts, ", "))
	}
}
