package main

import (
	"os"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/scenarios"
)

// loadLab reads a lab file, or a built-in scenario when no such file exists.
// Every problem is a usage error (exit 2) naming file:line.
func loadLab(arg string) (*labfile.Lab, error) {
	if _, err := os.Stat(arg); err == nil {
		lab, err := labfile.Load(arg)
		if err != nil {
			return nil, usageError{err}
		}
		return lab, nil
	}
	data, err := scenarios.Get(arg)
	if err != nil {
		return nil, usageError{err}
	}
	lab, err := labfile.Parse("scenarios/"+arg+".yaml", data)
	if err != nil {
		return nil, usageError{err}
	}
	return lab, nil
}
