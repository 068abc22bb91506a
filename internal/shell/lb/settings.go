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
	"github.com/lblab/lblab/internal/shell/state"
)

// Settings is state.Settings.
type Settings = state.Settings

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
	for _, a := range state.APISettings {
		raw, ok := given[a.Name]
		if !ok {
			continue
		}
		delete(given, a.Name)
		text, err := settingText(a.Type, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %s (%s)", a.Name, err, a.Path)
		}
		cs = append(cs, change{a.Name, a.Path, text})
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
	for _, a := range state.APISettings {
		if strings.HasPrefix(a.Name, name+".") {
			return true
		}
	}
	return false
}

// settingNames lists the settings' names, for an error.
func settingNames() string {
	names := make([]string, len(state.APISettings))
	for i, a := range state.APISettings {
		names[i] = a.Name
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
	return strings.HasPrefix(path, "balancers.") || labfile.HopSetting(path)
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
	for _, c := range cs {
		if err := l.lab.FixedChange(nl, c.path); err != nil {
			return badInput{nameField(cs, err)}
		}
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
