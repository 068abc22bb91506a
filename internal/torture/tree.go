package torture

import (
	"strconv"
	"strings"
	"time"
)

// A drawn lab is a tree of YAML values, not a labfile.Lab: the generator
// writes what a user would write (only the keys a feature needs, the rest
// left to the defaults), the lab file it prints is short, the shrinker can
// turn a feature off by deleting its key without knowing the schema, and
// every lab goes through labyaml.Parse, so the validator and the defaults
// are exercised too and a change to the Lab struct needs no change here.

// Map is a YAML mapping whose keys keep the order they were added in.
type Map []Field

// Field is one key of a Map. Val is a Map, a List, or a scalar: string,
// int, uint64, float64, bool or time.Duration.
type Field struct {
	Key string
	Val any
}

// List is a YAML sequence.
type List []any

// Get returns the value at key, or nil.
func (m Map) Get(key string) any {
	for _, f := range m {
		if f.Key == key {
			return f.Val
		}
	}
	return nil
}

// Set replaces the value at key, or appends the key.
func (m *Map) Set(key string, v any) {
	for i := range *m {
		if (*m)[i].Key == key {
			(*m)[i].Val = v
			return
		}
	}
	*m = append(*m, Field{key, v})
}

// YAML writes the tree as a lab file: block mappings, and lists of
// mappings with one flow mapping per line (events read like a script).
func (m Map) YAML() []byte {
	var b strings.Builder
	writeMap(&b, m, 0)
	return []byte(b.String())
}

func writeMap(b *strings.Builder, m Map, indent int) {
	pad := strings.Repeat("  ", indent)
	for _, f := range m {
		switch v := f.Val.(type) {
		case Map:
			if flat(v) {
				b.WriteString(pad + f.Key + ": " + flow(v) + "\n")
				continue
			}
			b.WriteString(pad + f.Key + ":\n")
			writeMap(b, v, indent+1)
		case List:
			b.WriteString(pad + f.Key + ":\n")
			for _, e := range v {
				if em, ok := e.(Map); ok && !flat(em) {
					// "- first: v" then the other keys under it
					var sub strings.Builder
					writeMap(&sub, em, indent+2)
					b.WriteString(pad + "  - " + strings.TrimLeft(sub.String(), " "))
					continue
				}
				b.WriteString(pad + "  - " + scalarOrFlow(e) + "\n")
			}
		default:
			b.WriteString(pad + f.Key + ": " + scalar(v) + "\n")
		}
	}
}

// flat reports whether a mapping fits on one line: scalars and flat
// mappings only, and not too many of them.
func flat(m Map) bool {
	if len(m) > 6 {
		return false
	}
	for _, f := range m {
		switch v := f.Val.(type) {
		case List:
			return false
		case Map:
			if !flat(v) {
				return false
			}
		}
	}
	return true
}

func scalarOrFlow(v any) string {
	if m, ok := v.(Map); ok {
		return flow(m)
	}
	return scalar(v)
}

func flow(m Map) string {
	parts := make([]string, len(m))
	for i, f := range m {
		parts[i] = f.Key + ": " + scalarOrFlow(f.Val)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func scalar(v any) string {
	switch t := v.(type) {
	case string:
		return quoteIfNeeded(t)
	case int:
		return strconv.Itoa(t)
	case uint64:
		return strconv.FormatUint(t, 10)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	case time.Duration:
		return t.String()
	}
	panic("torture: unexpected value in a lab tree")
}

// quoteIfNeeded leaves plain words alone and quotes anything YAML could
// read as something else (a number, a boolean, empty).
func quoteIfNeeded(s string) string {
	plain := s != ""
	for i, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && strings.ContainsRune("._-", c)) {
			plain = false
		}
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		plain = false
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		plain = false
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}
