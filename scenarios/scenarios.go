// Package scenarios embeds the built-in lab files, so `lab sim rr-slow`
// works from any directory.
package scenarios

import (
	"embed"
	"fmt"
	"sort"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/suggest"
)

//go:embed *.yaml
var files embed.FS

// Names lists the built-in scenarios, sorted.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}

// File is the name the scenario called name goes by in messages (its
// problems are named at file:line:col there): scenarios/NAME.yaml.
func File(name string) string { return "scenarios/" + name + ".yaml" }

// Lab parses the scenario called name (its problems named at File(name)).
func Lab(name string) (*labfile.Lab, error) {
	data, err := Get(name)
	if err != nil {
		return nil, err
	}
	return labyaml.Parse(File(name), data)
}

// Get returns the lab file of the scenario called name.
func Get(name string) ([]byte, error) {
	data, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no scenario %q%s (built in: %s)", name, suggest.DidYouMean(name, Names(), false), strings.Join(Names(), ", "))
	}
	return data, nil
}
