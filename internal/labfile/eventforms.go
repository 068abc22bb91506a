package labfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/suggest"
)

// An event has four forms: the lab file's (read by labyaml.Parse, written
// by labyaml.Marshal from Written), its text, a drill line as `lab chaos`
// takes it and the event logs show it (String, ParseDrill), and its JSON, as
// POST /api/chaos and the backend's POST /admin/drill take it. They read the fields of Event by their
// lab-file names and the fields each drill takes from Drills (given), so a
// drill or a field is declared once, there and in Event.

// eventFields are the fields of Event, by their lab-file names.
var eventFields = fieldsOf(reflect.TypeOf(Event{}))

// String is the event as a drill line, as `lab chaos` takes it and the
// event logs show it: "slow s2 speed=0.25", "set clients.budget=0.1",
// "kill s3 for=30s". It writes the action, the target, then the drill's
// fields (given) as key=value, a set's paths in order, then for.
func (e Event) String() string {
	parts := []string{string(e.Action)}
	if e.Target != "" {
		parts = append(parts, e.Target)
	}
	for _, f := range e.given() {
		if f.value.Kind() == reflect.Map {
			for _, k := range slices.Sorted(maps.Keys(e.Set)) {
				parts = append(parts, k+"="+e.Set[k])
			}
			continue
		}
		parts = append(parts, f.name+"="+scalarText(f.value))
	}
	if e.For > 0 {
		parts = append(parts, "for="+e.For.String())
	}
	return strings.Join(parts, " ")
}

// givenField is one field of an event by its lab-file name.
type givenField struct {
	name  string
	value reflect.Value
}

// given are the fields e's drill takes besides at, action, target and for
// (Drill.Fields, in order), but an Optional one left at zero (the drill's
// default): what each form of the event writes. An event of no known
// action gives every field it has set.
func (e Event) given() []givenField {
	v := reflect.ValueOf(e)
	d, ok := DrillOf(e.Action)
	var out []givenField
	for _, f := range eventFields {
		fv := v.FieldByIndex(f.index)
		switch {
		case f.name == "at" || f.name == "action" || f.name == "target" || f.name == "for":
		case !ok:
			if !fv.IsZero() {
				out = append(out, givenField{f.name, fv})
			}
		case !d.Takes(f.name), fv.IsZero() && slices.Contains(d.Optional, f.name):
		default:
			out = append(out, givenField{f.name, fv})
		}
	}
	if ok { // in the drill's order
		slices.SortStableFunc(out, func(a, b givenField) int {
			return slices.Index(d.Fields, a.name) - slices.Index(d.Fields, b.name)
		})
	}
	return out
}

// EventField is one field of an event as a lab file writes it
// (Event.Written): its lab-file name and its value.
type EventField struct {
	Name  string
	Value any // a string, a number or a bool; set's paths are []EventField
}

// Written is the event as a person writes it in a lab file, field by field:
// at and action, the target when there is one, the fields its drill takes
// (given), and for when it is time-boxed; not every field of every action
// at its zero. A duration is its text (300ms), a whole number has no
// fraction (400, not 400.0), and set is its paths in order. labyaml.Marshal
// writes it, and labyaml.Parse reads it back to the same event.
func (e Event) Written() []EventField {
	out := []EventField{{"at", e.At.String()}, {"action", string(e.Action)}}
	if e.Target != "" {
		out = append(out, EventField{"target", e.Target})
	}
	for _, f := range e.given() {
		var val any
		switch {
		case f.value.Type() == durationType:
			val = time.Duration(f.value.Int()).String()
		case f.value.Kind() == reflect.Float64 && f.value.Float() == math.Trunc(f.value.Float()) && math.Abs(f.value.Float()) < 1<<53:
			val = int64(f.value.Float()) // 400, not 400.0
		case f.value.Kind() == reflect.Map:
			set := []EventField{}
			for _, k := range slices.Sorted(maps.Keys(e.Set)) {
				set = append(set, EventField{k, e.Set[k]})
			}
			val = set
		default:
			val = f.value.Interface()
		}
		out = append(out, EventField{f.name, val})
	}
	if e.For > 0 {
		out = append(out, EventField{"for", e.For.String()})
	}
	return out
}

// ParseDrill reads a drill line, `ACTION [TARGET] [key=value...]`, back
// into an event (the inverse of String): the keys are the event's value
// fields (speed, pause, share, rate, algorithm, for: a time box) and, for
// set, any dotted lab path (clients.budget=0.1). The values are checked as
// text here; what they must be is the lab's check (Validate, CheckDrill).
func ParseDrill(args []string) (Event, error) {
	if len(args) == 0 {
		return Event{}, fmt.Errorf("give an action: %s", strings.Join(ActionNames(), ", "))
	}
	d, ok := DrillOf(Action(args[0]))
	if !ok {
		return Event{}, fmt.Errorf("unknown action %q%s (one of %s)", args[0], suggest.DidYouMean(args[0], ActionNames(), false),
			strings.Join(ActionNames(), ", "))
	}
	ev := Event{Action: d.Action}
	v := reflect.ValueOf(&ev).Elem()
	for _, a := range args[1:] {
		k, text, ok := strings.Cut(a, "=")
		if !ok {
			if ev.Target != "" {
				return ev, fmt.Errorf("%q: give settings as key=value", a)
			}
			ev.Target = a
			continue
		}
		if strings.Contains(k, ".") {
			if ev.Set == nil {
				ev.Set = map[string]string{}
			}
			ev.Set[k] = text
			continue
		}
		f, ok := lookupField(eventFields, k)
		if !ok || !slices.Contains(drillKeys(), k) {
			return ev, fmt.Errorf("unknown setting %q: use %s or a dotted lab path", k, strings.Join(drillKeys(), ", "))
		}
		if err := setEventText(v.FieldByIndex(f.index), k, text); err != nil {
			return ev, err
		}
	}
	return ev, nil
}

// Example is drill d as a one-click control sends it (the dashboard's
// buttons): each field it needs but the target at the value of its Event
// field's example tag, the optional ones left out. ok is false when a field
// it needs has no example (set's dotted paths).
func (d *Drill) Example() (ev Event, ok bool) {
	ev = Event{Action: d.Action}
	v := reflect.ValueOf(&ev).Elem()
	for _, name := range d.Fields {
		if name == "target" || slices.Contains(d.Optional, name) {
			continue
		}
		f, found := lookupField(eventFields, name)
		if !found {
			return Event{}, false
		}
		text, has := reflect.TypeOf(Event{}).FieldByIndex(f.index).Tag.Lookup("example")
		if !has || setEventText(v.FieldByIndex(f.index), name, text) != nil {
			return Event{}, false
		}
	}
	return ev, true
}

// drillKeys are the fields a drill line gives as key=value: every scalar
// field but at, action and target.
func drillKeys() []string {
	var out []string
	for _, f := range eventFields {
		t := reflect.TypeOf(Event{}).FieldByIndex(f.index).Type
		if f.name != "at" && f.name != "action" && f.name != "target" && t.Kind() != reflect.Map {
			out = append(out, f.name)
		}
	}
	return out
}

// setEventText sets an event field from its text, naming the field and the
// value when the text is not of its kind.
func setEventText(fv reflect.Value, name, text string) error {
	switch {
	case fv.Type() == durationType:
		d, err := parseDuration(text)
		if err != nil {
			return fmt.Errorf("%s: %q is not a duration like 300ms or 30s", name, text)
		}
		fv.SetInt(int64(d))
	case fv.Kind() == reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", name, text)
		}
		fv.SetFloat(x)
	case fv.CanInt():
		x, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil || fv.OverflowInt(x) {
			return fmt.Errorf("%s: %q is not a whole number", name, text)
		}
		fv.SetInt(x)
	case fv.Kind() == reflect.String:
		fv.SetString(text)
	default: // a field of a kind no drill line can give: a programming error
		return fmt.Errorf("%s: a drill line cannot give a %s", name, fv.Type())
	}
	return nil
}

// MarshalJSON writes the event as UnmarshalJSON reads it: the lab file's
// field names, the fields given (the action always), durations as text.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	v := reflect.ValueOf(e)
	for _, f := range eventFields {
		fv := v.FieldByIndex(f.index)
		if fv.IsZero() && f.name != "action" {
			continue
		}
		val := fv.Interface()
		if fv.Type() == durationType {
			val = time.Duration(fv.Int()).String()
		}
		enc, err := json.Marshal(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(f.name))
		b.WriteByte(':')
		b.Write(enc)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an event as POST /api/chaos and the backend's POST
// /admin/drill take it: the lab file's field names, and durations (at,
// pause, for) either as text like "300ms" (what a person or the dashboard
// writes) or as a number of nanoseconds. Unknown fields are errors.
func (e *Event) UnmarshalJSON(data []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if _, ok := lookupField(eventFields, k); !ok {
			return fmt.Errorf("json: unknown field %q", k)
		}
	}
	var out Event
	v := reflect.ValueOf(&out).Elem()
	for _, f := range eventFields {
		msg, ok := raw[f.name]
		if !ok || string(msg) == "null" {
			continue
		}
		fv := v.FieldByIndex(f.index)
		var err error
		if fv.Type() == durationType {
			var d jsonDuration
			err = d.UnmarshalJSON(msg)
			fv.SetInt(int64(d))
		} else {
			err = json.Unmarshal(msg, fv.Addr().Interface())
		}
		if err != nil {
			return fmt.Errorf("%s: %v", f.name, err)
		}
	}
	*e = out
	return nil
}

// jsonDuration is a duration as text ("30s") or as nanoseconds (a number).
type jsonDuration time.Duration

func (d *jsonDuration) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := parseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration like 300ms or 30s", s)
		}
		*d = jsonDuration(v)
		return nil
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("%s is not a duration: give text like \"30s\" or whole nanoseconds", data)
	}
	*d = jsonDuration(n)
	return nil
}
