package labfile

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// field is one yaml field of a schema struct, with inline structs flattened.
type field struct {
	name  string // yaml name
	index []int  // for reflect.Value.FieldByIndex
}

var durationType = reflect.TypeOf(time.Duration(0))

// textValue is a setting of a type of its own that reads one text value
// (Handshake): a scalar in the file, whatever its Go kind.
type textValue interface {
	encoding.TextUnmarshaler
	Want() string // what it takes, for "want X, got Y"
}

var textValueType = reflect.TypeOf((*textValue)(nil)).Elem()

// isText reports whether t reads itself from text (textValue).
func isText(t reflect.Type) bool { return reflect.PointerTo(t).Implements(textValueType) }

// Schema is the fields of one schema struct type (Lab, Clients, Server...)
// by their lab-file names, inline structs flattened: what labyaml's decoder
// reads a mapping of the file into.
type Schema struct{ fields []field }

// SchemaOf returns the schema of struct type t.
func SchemaOf(t reflect.Type) Schema { return Schema{fieldsOf(t)} }

// Names lists the fields' lab-file names in declaration order: the keys a
// mapping of this section may hold.
func (s Schema) Names() []string { return fieldNames(s.fields) }

// Field returns the index (for reflect.Value.FieldByIndex) of the field the
// lab file names name; ok is false when the section has no such field.
func (s Schema) Field(name string) (index []int, ok bool) {
	f, ok := lookupField(s.fields, name)
	return f.index, ok
}

// Unknown is the message for a key name that the section where (its dotted
// path, or "the lab") has no field of: the nearest field's name suggested,
// every field's name listed.
func (s Schema) Unknown(name, where string) string {
	return unknownKeyMsg(name, where, s.Names())
}

// fieldsOf lists the yaml fields of struct type t in declaration order,
// flattening `yaml:",inline"` members (ServerGroup's Server).
func fieldsOf(t reflect.Type) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if opts == "inline" && f.Type.Kind() == reflect.Struct {
			for _, in := range fieldsOf(f.Type) {
				out = append(out, field{name: in.name, index: append([]int{i}, in.index...)})
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out = append(out, field{name: name, index: []int{i}})
	}
	return out
}

// lookupField finds the field named name among fields.
func lookupField(fields []field, name string) (field, bool) {
	for _, f := range fields {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// fieldNames lists the names of fields.
func fieldNames(fields []field) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// IsScalar reports whether t is a leaf type of the schema, set from one
// scalar value of the file (SetScalar): a number, a word, a duration or a
// setting that reads itself from text (Handshake).
func IsScalar(t reflect.Type) bool {
	if isText(t) {
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return true
	}
	return false
}

// ScalarWant says what a scalar of type t takes, for "want X, got Y"
// messages: "a whole number", "a duration like 50ms, 1.5s or 0".
func ScalarWant(t reflect.Type) string {
	switch {
	case isText(t):
		return reflect.New(t).Interface().(textValue).Want()
	case t == durationType:
		return "a duration like 50ms, 1.5s or 0"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Int, t.Kind() == reflect.Int64:
		return "a whole number"
	case t.Kind() == reflect.Uint64:
		return "a whole number >= 0"
	case t.Kind() == reflect.Float64:
		return "a number"
	}
	return "text"
}

// scalarValue is one scalar as written: its text and, for YAML numbers and
// booleans, the value the YAML parser already decoded (nil from Apply).
type scalarValue struct {
	text    string
	decoded any
}

// SetScalar sets v (addressable, of a scalar type: IsScalar) from a scalar
// of the file: its text as written and, for YAML numbers and booleans, the
// value the YAML parser decoded (nil for none). The error names what v
// takes and quotes the text.
func SetScalar(v reflect.Value, text string, decoded any) error {
	return setScalar(v, scalarValue{text: text, decoded: decoded})
}

// setScalar parses sv into v per v's type. The error message names the
// expected type and quotes the bad text.
func setScalar(v reflect.Value, sv scalarValue) error {
	t := v.Type()
	bad := func() error { return fmt.Errorf("want %s, got %s", ScalarWant(t), Quote(sv.text)) }
	switch {
	case isText(t):
		return v.Addr().Interface().(textValue).UnmarshalText([]byte(sv.text))
	case t == durationType:
		d, err := parseDuration(sv.text)
		if err != nil {
			return bad()
		}
		v.SetInt(int64(d))
	case t.Kind() == reflect.String:
		v.SetString(sv.text)
	case t.Kind() == reflect.Bool:
		b, ok := sv.decoded.(bool)
		if !ok {
			var err error
			if b, err = strconv.ParseBool(strings.TrimSpace(sv.text)); err != nil {
				return bad()
			}
		}
		v.SetBool(b)
	case t.Kind() == reflect.Int, t.Kind() == reflect.Int64:
		n, ok := toInt(sv)
		if !ok {
			return bad()
		}
		v.SetInt(n)
	case t.Kind() == reflect.Uint64:
		n, ok := toUint(sv)
		if !ok {
			return bad()
		}
		v.SetUint(n)
	case t.Kind() == reflect.Float64:
		f, ok := toFloat(sv)
		if !ok {
			return bad()
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("want a finite number, got %s", Quote(sv.text))
		}
		v.SetFloat(f)
	default:
		return fmt.Errorf("cannot set a %s", t)
	}
	return nil
}

// parseDuration accepts Go durations (50ms, 1m30s) and a bare 0.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	return time.ParseDuration(s)
}

func toInt(sv scalarValue) (int64, bool) {
	switch n := sv.decoded.(type) {
	case int64:
		return n, true
	case uint64:
		if n > math.MaxInt64 {
			return 0, false
		}
		return int64(n), true
	}
	n, err := strconv.ParseInt(strings.TrimSpace(sv.text), 10, 64)
	return n, err == nil
}

func toUint(sv scalarValue) (uint64, bool) {
	switch n := sv.decoded.(type) {
	case int64:
		return uint64(n), n >= 0
	case uint64:
		return n, true
	}
	n, err := strconv.ParseUint(strings.TrimSpace(sv.text), 10, 64)
	return n, err == nil
}

func toFloat(sv scalarValue) (float64, bool) {
	var f float64
	switch n := sv.decoded.(type) {
	case int64:
		f = float64(n)
	case uint64:
		f = float64(n)
	case float64:
		f = n
	default:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(sv.text), 64); err != nil {
			return 0, false
		}
	}
	return f, true
}
