package labfile

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// knobSections are the top-level keys Apply and set paths may reach; name,
// description, narration, compare and events are not knobs.
var knobSections = []string{"seed", "duration", "network", "clients", "balancers", "servers"}

// Apply sets one knob by its dotted yaml path and validates the result. The
// lab is changed only when the value parses and the lab stays valid.
//
// Paths are yaml names joined by dots: "clients.budget",
// "balancers.breaker.enabled", "servers[0].queue.discipline", or
// "servers.queue.capacity" (no index: every server group). The value is
// parsed per the field's type: durations like 50ms, true/false, numbers,
// text. Setting a field of servers[i].work when that server has no work of
// its own first copies the clients' work, so only the named field changes.
func (l *Lab) Apply(path, value string) error {
	c := l.Clone()
	if err := setPath(c, path, value, false); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	*l = *c
	return nil
}

// ApplyWithScript is Apply with one more kind of path: a field of one of
// the script's events, events[i].f, where f is at, for, or a field the
// event's action takes (events[0].speed of a slow, events[2].rate of a
// rate event). It is what a sweep's --vary uses: a trigger's size and
// timing are settings of an experiment, not of a running lab, so Apply (the
// processes' settings APIs, set events) does not reach the script.
func (l *Lab) ApplyWithScript(path, value string) error {
	c := l.Clone()
	if err := setPath(c, path, value, true); err != nil {
		return err
	}
	if err := c.Validate(); err != nil {
		return err
	}
	*l = *c
	return nil
}

// WithAxis returns a copy of l with one axis of a sweep at one value,
// validated: what lab sweep's --vary applies at each grid point, and what
// lab watch applies to play a cell of a metastability map. The path is
// "algorithm" (the balancing algorithm, as a compare setting of that name
// chooses it) or what ApplyWithScript reads, a field of a script event
// included (events[0].speed: the trigger's size, events[0].for: how long
// it lasts).
func (l *Lab) WithAxis(path, value string) (*Lab, error) {
	if path == "algorithm" {
		return l.WithSetting(Setting{Name: value, Algorithm: value})
	}
	c := l.Clone()
	if err := c.ApplyWithScript(path, value); err != nil {
		return nil, err
	}
	return c, nil
}

// ApplyAll sets several dotted paths at once, in order, and validates the
// result once, so settings that only make sense together (aperture off and
// a subset on) can be changed in one step. On error l is not changed.
func (l *Lab) ApplyAll(pairs [][2]string) error {
	c := l.Clone()
	for _, kv := range pairs {
		if err := setPath(c, kv[0], kv[1], false); err != nil {
			return err
		}
	}
	if err := c.Validate(); err != nil {
		return err
	}
	*l = *c
	return nil
}

// WithSetting returns a copy of the lab with a compare setting applied: the
// Algorithm shorthand (to clients.algorithm when the lab balances
// client-side, else balancers.algorithm), then each Set entry in key order;
// an entry may name a field of a script event (ApplyWithScript).
// The copy is validated (its knobs and events; the compare list it still
// holds is not re-checked on top of the setting); l is not changed.
func (l *Lab) WithSetting(s Setting) (*Lab, error) {
	c := l.Clone()
	if errs := applySetting(c, s.Algorithm, s.Set, true); len(errs) > 0 {
		return nil, fmt.Errorf("setting %q: %w", s.Name, errs.result())
	}
	r := &reporter{}
	validateRun(c, r)
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("setting %q: %w", s.Name, r.errs.result())
	}
	return c, nil
}

// applySetting applies an algorithm shorthand and set entries to c without
// validating; it returns the entries that do not parse, each under its key.
// script lets an entry name a field of a script event (a compare setting
// may; a set event may not).
func applySetting(c *Lab, algorithm string, set map[string]string, script bool) Errors {
	if algorithm != "" {
		if c.Clients.Algorithm != "" {
			c.Clients.Algorithm = algorithm
		} else {
			c.Balancers.Algorithm = algorithm
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs Errors
	for _, k := range keys {
		if err := setPath(c, k, set[k], script); err != nil {
			if err.Field != k { // report under the key the user wrote
				err = &Error{Field: k, Msg: err.Field + ": " + err.Msg}
			}
			errs = append(errs, err)
		}
	}
	return errs
}

// segment is one step of a dotted path: a name and an optional [index].
type segment struct {
	name  string
	index int // -1: none
}

// parseSegment reads one step of a dotted path: a yaml name of a-z and _,
// then optionally an index of 1 to 6 digits in brackets ("servers[0]").
// Written out rather than as a regular expression, so that what links the
// lab-file parser (the page's wasm module) does not link regexp.
func parseSegment(p string) (segment, bool) {
	name, index, indexed := strings.Cut(p, "[")
	if name == "" || strings.TrimLeft(name, "abcdefghijklmnopqrstuvwxyz_") != "" {
		return segment{}, false
	}
	s := segment{name: name, index: -1}
	if !indexed {
		return s, true
	}
	digits, closed := strings.CutSuffix(index, "]")
	if !closed || len(digits) == 0 || len(digits) > 6 || strings.TrimLeft(digits, "0123456789") != "" {
		return segment{}, false
	}
	s.index, _ = strconv.Atoi(digits)
	return s, true
}

func parsePath(path string) ([]segment, *Error) {
	parts := strings.Split(path, ".")
	segs := make([]segment, len(parts))
	for i, p := range parts {
		seg, ok := parseSegment(p)
		if !ok {
			return nil, &Error{Field: path, Msg: "not a path: want yaml names joined by dots, like clients.budget or servers[0].queue.capacity"}
		}
		segs[i] = seg
	}
	return segs, nil
}

// scriptSection is the top-level key of the script: a path reaches it only
// where the script may change (ApplyWithScript, a compare setting).
const scriptSection = "events"

// setPath parses value into the field at path, without validating; script
// lets the path name a field of a script event (setEvent).
func setPath(l *Lab, path, value string, script bool) *Error {
	segs, err := parsePath(path)
	if err != nil {
		return err
	}
	top := knobFields()
	if script {
		f, _ := lookupField(fieldsOf(reflect.TypeOf(*l)), scriptSection)
		top = append(top, f)
	}
	s := setter{lab: l, value: value}
	return s.set(reflect.ValueOf(l).Elem(), top, segs, "")
}

type setter struct {
	lab   *Lab
	value string
}

// set walks segs from struct v (whose settable fields are fields).
func (s setter) set(v reflect.Value, fields []field, segs []segment, prefix string) *Error {
	seg, rest := segs[0], segs[1:]
	here := JoinPath(prefix, seg.name)
	f, ok := lookupField(fields, seg.name)
	if !ok {
		where := prefix
		if where == "" {
			where = "the lab's settable sections"
		}
		return &Error{Field: here, Msg: unknownKeyMsg(seg.name, where, fieldNames(fields))}
	}
	fv := v.FieldByIndex(f.index)
	if prefix == "" && seg.name == scriptSection {
		return s.setEvent(fv, seg, rest, here)
	}
	if fv.Kind() == reflect.Slice {
		return s.setEach(fv, seg, rest, here)
	}
	if seg.index >= 0 {
		return &Error{Field: here, Msg: seg.name + " is not a list; drop the [index]"}
	}
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() {
			fv.Set(s.fresh(fv.Type()))
		}
		fv = fv.Elem()
	}
	if fv.Type() == durationType || IsScalar(fv.Type()) {
		if len(rest) > 0 {
			return &Error{Field: here, Msg: seg.name + " is a value, not a section"}
		}
		if err := setScalar(fv, scalarValue{text: s.value}); err != nil {
			return &Error{Field: here, Msg: err.Error()}
		}
		return nil
	}
	sub := settableFields(fv.Type())
	if fv.Kind() != reflect.Struct || sub == nil {
		return &Error{Field: here, Msg: seg.name + " cannot be set by path"}
	}
	if len(rest) == 0 {
		return &Error{Field: here, Msg: seg.name + " is a section; set one of its fields: " + strings.Join(fieldNames(sub), ", ")}
	}
	return s.set(fv, sub, rest, here)
}

// setEach applies the rest of the path to one element of a list of
// sections, or to every element when the segment has no index.
func (s setter) setEach(list reflect.Value, seg segment, rest []segment, here string) *Error {
	sub := settableFields(list.Type().Elem())
	switch {
	case sub == nil:
		return &Error{Field: here, Msg: seg.name + " cannot be set by path"}
	case len(rest) == 0:
		return &Error{Field: here, Msg: seg.name + " is a list; set a field of one element (" + seg.name + "[0].x) or of every element (" + seg.name + ".x): " + strings.Join(fieldNames(sub), ", ")}
	case list.Len() == 0:
		return &Error{Field: here, Msg: seg.name + " is empty"}
	case seg.index >= list.Len():
		return &Error{Field: IndexPath(here, seg.index), Msg: fmt.Sprintf("index %d is out of range: %s has %d entries (0..%d)", seg.index, seg.name, list.Len(), list.Len()-1)}
	}
	if seg.index >= 0 {
		return s.set(list.Index(seg.index), sub, rest, IndexPath(here, seg.index))
	}
	for i := 0; i < list.Len(); i++ {
		if err := s.set(list.Index(i), sub, rest, here); err != nil {
			return err
		}
	}
	return nil
}

// setEvent sets one field of one script event, events[i].f: its at, its
// for, or a field its action takes (Drill.Fields), so that a path names
// only what the event's own line in the lab file could hold.
func (s setter) setEvent(list reflect.Value, seg segment, rest []segment, here string) *Error {
	n := list.Len()
	switch {
	case n == 0:
		return &Error{Field: here, Msg: "the lab has no script events to set"}
	case seg.index < 0:
		return &Error{Field: here, Msg: fmt.Sprintf("name one event by its index, like events[0].at (the script has %s: 0..%d)", eventCount(n), n-1)}
	case seg.index >= n:
		return &Error{Field: IndexPath(here, seg.index), Msg: fmt.Sprintf("index %d is past the script: it has %s (0..%d)", seg.index, eventCount(n), n-1)}
	}
	here = IndexPath(here, seg.index)
	ev := list.Index(seg.index)
	action := ev.Interface().(Event).Action
	takes := append([]string{"at", "for"}, drillFields(action)...)
	switch {
	case len(rest) == 0:
		return &Error{Field: here, Msg: "is an event; set one of its fields: " + strings.Join(takes, ", ")}
	case len(rest) > 1:
		return &Error{Field: JoinPath(here, rest[0].name), Msg: rest[0].name + " is a value, not a section"}
	}
	name := rest[0].name
	here = JoinPath(here, name)
	f, known := lookupField(eventFields, name)
	switch {
	case !known:
		return &Error{Field: here, Msg: unknownKeyMsg(name, "an event", takes)}
	case !slices.Contains(takes, name):
		return &Error{Field: here, Msg: fmt.Sprintf("is not a field of a %s event (it takes %s)", action, strings.Join(takes, ", "))}
	case rest[0].index >= 0:
		return &Error{Field: here, Msg: name + " is not a list; drop the [index]"}
	}
	if err := setScalar(ev.FieldByIndex(f.index), scalarValue{text: s.value}); err != nil {
		return &Error{Field: here, Msg: err.Error()}
	}
	return nil
}

func eventCount(n int) string {
	if n == 1 {
		return "1 event"
	}
	return strconv.Itoa(n) + " events"
}

// drillFields are the fields an action's drill takes that a path may set
// (Drill.Fields but set, a map given whole in a file only). It is a
// variable set by init because Drills (through the set drill's record)
// reaches setPath, which reaches this: a direct call would be an
// initialization cycle.
var drillFields func(Action) []string

func init() {
	drillFields = func(a Action) []string {
		d, ok := DrillOf(a)
		if !ok {
			return nil
		}
		return slices.DeleteFunc(slices.Clone(d.Fields), func(f string) bool { return f == "set" })
	}
}

// fresh returns a new value for a nil pointer field: a server's work starts
// as a copy of the clients' work.
func (s setter) fresh(t reflect.Type) reflect.Value {
	if t == reflect.TypeOf((*Dist)(nil)) {
		w := s.lab.Clients.Work.clone()
		return reflect.ValueOf(&w)
	}
	return reflect.New(t.Elem())
}

// settableFields lists the fields of struct type t a path may name (maps
// are not settable); nil when t is not a struct.
func settableFields(t reflect.Type) []field {
	if t.Kind() != reflect.Struct || t == durationType {
		return nil
	}
	var out []field
	for _, f := range fieldsOf(t) {
		if t.FieldByIndex(f.index).Type.Kind() != reflect.Map {
			out = append(out, f)
		}
	}
	return out
}

// Clone returns a deep copy of the lab.
func (l *Lab) Clone() *Lab {
	if l == nil {
		return nil
	}
	c := *l
	c.Clients.Work = l.Clients.Work.clone()
	if p := l.Clients.Profile; p != nil {
		cp := *p
		cp.Levels = cloneEach(p.Levels, func(v float64) float64 { return v })
		c.Clients.Profile = &cp
	}
	c.Clients.Faults = cloneEach(l.Clients.Faults, func(f FaultShare) FaultShare { return f })
	c.Zones = cloneEach(l.Zones, func(z Zone) Zone { return z })
	c.Clients.Zones = cloneEach(l.Clients.Zones, func(z string) string { return z })
	c.Balancers.Zones = cloneEach(l.Balancers.Zones, func(z string) string { return z })
	c.Captions = cloneEach(l.Captions, func(c Caption) Caption { return c })
	c.Servers = cloneEach(l.Servers, func(g ServerGroup) ServerGroup {
		if g.Work != nil {
			w := g.Work.clone()
			g.Work = &w
		}
		return g
	})
	c.Compare = cloneEach(l.Compare, func(s Setting) Setting {
		s.Set = maps.Clone(s.Set)
		return s
	})
	c.Events = cloneEach(l.Events, func(e Event) Event {
		e.Set = maps.Clone(e.Set)
		return e
	})
	return &c
}

func (d Dist) clone() Dist {
	d.Mix = cloneEach(d.Mix, func(m MixPart) MixPart { return m })
	return d
}

// cloneEach copies a slice element by element; nil stays nil.
func cloneEach[T any](s []T, copyOne func(T) T) []T {
	if s == nil {
		return nil
	}
	out := make([]T, len(s))
	for i, x := range s {
		out[i] = copyOne(x)
	}
	return out
}
