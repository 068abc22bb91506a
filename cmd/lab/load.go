package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/scenarios"
)

// loadLab reads a lab file, or a built-in scenario when no such file exists.
// Every problem is a usage error (exit 2) naming file:line.
func loadLab(arg string) (*labfile.Lab, error) {
	if _, err := os.Stat(arg); err == nil {
		lab, err := labyaml.Load(arg)
		if err != nil {
			return nil, usageError{err}
		}
		return lab, nil
	}
	if strings.ContainsAny(arg, "/\\") || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml") {
		return nil, usageError{fmt.Errorf("%s: no such lab file", arg)}
	}
	lab, err := scenarios.Lab(arg)
	if err != nil {
		return nil, usageError{err}
	}
	return lab, nil
}

// locate gives err's lab-file problems their position in the lab file or
// scenario arg names (see labyaml.Locate); set are the paths set from flags.
func locate(err error, arg string, set ...string) error {
	file, data := arg, []byte(nil)
	if _, serr := os.Stat(arg); serr == nil {
		data, _ = os.ReadFile(arg)
	} else if d, gerr := scenarios.Get(arg); gerr == nil {
		file, data = scenarios.File(arg), d
	}
	if data == nil {
		return err
	}
	return labyaml.Locate(err, file, data, set...)
}
