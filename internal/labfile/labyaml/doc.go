// Package labyaml reads and writes lab files as YAML: Parse, ParseFile and
// Load decode a lab file strictly into a labfile.Lab (walking
// goccy/go-yaml's AST against labfile's schema, so every problem names
// file:line:col), Locate gives a problem found later the position of its
// field in the file, and Marshal writes a lab back as a lab file. It is
// the one package that links the YAML parser: labfile holds the model (the
// schema, its defaults and checks, the drills), which the simulator and
// the runtime link without it.
package labyaml
