package labyaml

import (
	"fmt"

	"github.com/goccy/go-yaml"

	"github.com/lblab/lblab/internal/labfile"
)

// Marshal writes the lab (defaults filled in) as a lab file that Parse reads
// back to the same lab: how `lab run` hands a scenario, with a compare
// setting applied, to the processes it starts, and what `lab watch` saves.
// Its events are written as a person writes them (labfile.Event.Written).
func Marshal(l *labfile.Lab) ([]byte, error) {
	data, err := yaml.MarshalWithOptions(l, yaml.CustomMarshaler(marshalEvent))
	if err != nil {
		return nil, fmt.Errorf("lab %s: %w", l.Name, err)
	}
	return data, nil
}

// marshalEvent writes an event's fields (Event.Written) in their order.
func marshalEvent(e labfile.Event) ([]byte, error) {
	return yaml.Marshal(mapSlice(e.Written()))
}

// mapSlice is fields as a YAML mapping in their order, nested fields (set's
// paths) as mappings of their own.
func mapSlice(fields []labfile.EventField) yaml.MapSlice {
	out := make(yaml.MapSlice, 0, len(fields))
	for _, f := range fields {
		val := f.Value
		if sub, ok := val.([]labfile.EventField); ok {
			val = mapSlice(sub)
		}
		out = append(out, yaml.MapItem{Key: f.Name, Value: val})
	}
	return out
}
