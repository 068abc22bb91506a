package labfile

import (
	"fmt"

	"github.com/goccy/go-yaml"
)

// Marshal writes the lab (defaults filled in) as a lab file that Parse reads
// back to the same lab: how `lab run` hands a scenario, with a compare
// setting applied, to the processes it starts, and what `lab watch` saves.
// Its events are written as a person writes them (Event.MarshalYAML).
func (l *Lab) Marshal() ([]byte, error) {
	data, err := yaml.Marshal(l)
	if err != nil {
		return nil, fmt.Errorf("lab %s: %w", l.Name, err)
	}
	return data, nil
}
