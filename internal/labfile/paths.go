package labfile

import (
	"fmt"
	"reflect"
	"strings"
)

// A Leaf is one value a dotted path sets (Apply, set events, compare
// settings): its path from the top of the lab and its Go type
// (time.Duration, bool, int, uint64, float64, string, a word type such as
// LoadMode, or a text value such as Handshake). A field of a list of
// sections is listed once, by the path without an index that sets it in
// every element (servers.speed).
type Leaf struct {
	Path string
	Type reflect.Type
}

// Leaves lists every leaf under section, in the schema's order: "" for
// every settable section of the lab, or a dotted section path such as
// "balancers" or "balancers.breaker". Everything that reads the settings
// generically (the lb's settings API, the docs check, the torture
// generator) walks this list, so a field added to the schema reaches them
// with no edit of theirs.
func Leaves(section string) []Leaf {
	var out []Leaf
	for _, top := range knobFields() {
		walkLeaves(reflect.TypeOf(Lab{}).FieldByIndex(top.index).Type, top.name, func(l Leaf) {
			if section == "" || l.Path == section || strings.HasPrefix(l.Path, section+".") {
				out = append(out, l)
			}
		})
	}
	return out
}

// knobFields are the fields of Lab a path may reach (knobSections).
func knobFields() []field {
	var top []field
	for _, f := range fieldsOf(reflect.TypeOf(Lab{})) {
		for _, k := range knobSections {
			if f.name == k {
				top = append(top, f)
			}
		}
	}
	return top
}

// walkLeaves calls leaf for every leaf of type t at path, depth first.
func walkLeaves(t reflect.Type, path string, leaf func(Leaf)) {
	switch t.Kind() {
	case reflect.Pointer:
		t = t.Elem()
	case reflect.Slice: // a list of sections; a list of values is set whole in a file only
		if t = t.Elem(); settableFields(t) == nil {
			return
		}
	}
	if t == durationType || IsScalar(t) {
		leaf(Leaf{Path: path, Type: t})
		return
	}
	for _, f := range settableFields(t) {
		walkLeaves(t.FieldByIndex(f.index).Type, path+"."+f.name, leaf)
	}
}

// Value returns the value at a dotted path of the lab, as its Go type (a
// time.Duration, an int, a LoadMode, ...): the reading that Apply is the
// writing of. A path into a list needs an index (servers[0].speed); a
// section left out (a server without work of its own) reads as its zero
// value.
func (l *Lab) Value(path string) (any, error) {
	segs, perr := parsePath(path)
	if perr != nil {
		return nil, perr
	}
	v, fields, here := reflect.ValueOf(l).Elem(), knobFields(), ""
	for i, seg := range segs {
		where := here
		if where == "" {
			where = "the lab's settable sections"
		}
		here = JoinPath(here, seg.name)
		f, ok := lookupField(fields, seg.name)
		if !ok {
			return nil, &Error{Field: here, Msg: unknownKeyMsg(seg.name, where, fieldNames(fields))}
		}
		v = v.FieldByIndex(f.index)
		if v.Kind() == reflect.Slice {
			if seg.index < 0 || seg.index >= v.Len() {
				return nil, &Error{Field: here, Msg: fmt.Sprintf("%s is a list of %d; name one element, like %s[0]", seg.name, v.Len(), seg.name)}
			}
			v, here = v.Index(seg.index), IndexPath(here, seg.index)
		}
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v = reflect.Zero(v.Type().Elem())
			} else {
				v = v.Elem()
			}
		}
		if v.Type() == durationType || IsScalar(v.Type()) {
			if i < len(segs)-1 {
				return nil, &Error{Field: here, Msg: seg.name + " is a value, not a section"}
			}
			return v.Interface(), nil
		}
		if fields = settableFields(v.Type()); fields == nil {
			return nil, &Error{Field: here, Msg: seg.name + " cannot be read by path"}
		}
	}
	return nil, &Error{Field: here, Msg: "is a section; name one of its fields: " + strings.Join(fieldNames(fields), ", ")}
}

// Allowed is what the lab file allows at a leaf, as its validation checks
// it: a Range (Range[int], Range[float64] or Range[time.Duration]), or one
// of a few Words; nil and empty for a leaf checked otherwise (a hedge, a
// handshake) or not at all (booleans, free text). Cross-field rules (an
// aperture needs a p2c algorithm, max_ejection >= base_ejection) come on
// top.
type Allowed struct {
	Range any
	Words []string
	// Typical, for some ranges, is the part of Range a lab of a few
	// seconds typically takes (a hop of a few milliseconds, not of 10 s):
	// what the torture generator draws from. nil: no narrower part.
	Typical any
}

// AllowedAt returns what the checks of lab allow at each leaf path they
// check, by the path without list indices (servers.speed). It runs the
// lab's own validation with a recorder, so a range is declared once, where
// the check names it (validate.go), and read from there by the docs check
// and the torture generator. A check that depends on the lab (clients.rate
// is (0, max] in open loop, [0, max] in closed) gives this lab's.
func (l *Lab) AllowedAt() map[string]Allowed {
	r := &reporter{allowed: map[string]Allowed{}}
	validateCore(l.Clone(), r)
	return r.allowed
}

// withoutIndexes drops the list indexes of a path (servers[2].workers is
// servers.workers), reading each step as a path's step (parseSegment); a
// part that is no step stays as it is.
func withoutIndexes(path string) string {
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if s, ok := parseSegment(p); ok {
			parts[i] = s.name
		}
	}
	return strings.Join(parts, ".")
}

// allow records what the check at path allows, when recording.
func (r *reporter) allow(path string, a Allowed) {
	if r.allowed != nil {
		r.allowed[withoutIndexes(path)] = a
	}
}
