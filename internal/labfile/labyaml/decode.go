package labyaml

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/lblab/lblab/internal/labfile"
)

// Load reads the lab file at path and parses it (see Parse). It reads no
// more than one byte over MaxFileSize, so a huge file is refused without
// being read whole. A file with nothing but blank lines and comments is an
// error (a mistake, not a lab); a lab without a name is named after its file
// (my-lab.yaml: my-lab).
func Load(path string) (*labfile.Lab, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	return ParseFile(path, data)
}

// ParseFile parses data as Load parses the file at path: an empty file
// (blank lines and comments only) is refused, and a lab without a name is
// named after the file (rr-slow.yaml -> rr-slow). A lab file that reaches
// lblab other than from disk (pasted into the page) goes through it, so
// that it gets what lab sim would make of the same file.
func ParseFile(path string, data []byte) (*labfile.Lab, error) {
	if len(data) <= MaxFileSize && blank(data) { // too big is Parse's to say
		return nil, &labfile.Error{File: path, Msg: "the lab file is empty: give at least its name (name: my-lab); docs/labfile.md has every section"}
	}
	lab, err := Parse(path, data)
	if err == nil && lab.Name == "" {
		base := filepath.Base(path)
		lab.Name = strings.TrimSuffix(base, filepath.Ext(base))
		if msg := labfile.CheckPrintable(lab.Name, false); msg != "" { // a name is printable text, wherever it comes from
			return nil, &labfile.Error{File: path, Field: "name", Msg: "none given, and the file's name " + msg + ": give the lab a name (name: my-lab)"}
		}
	}
	return lab, err
}

// blank reports whether a YAML text holds only blank lines, comments and
// document markers.
func blank(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") && line != "---" && line != "..." {
			return false
		}
	}
	return true
}

// Parse decodes a lab file strictly, applies defaults and validates it.
// file names the source in error messages.
//
// Decoding walks goccy/go-yaml's AST against the schema types, so every
// value's line and column are known: an unknown field is reported at its key
// with the allowed names, a value of the wrong type at the value with the
// type wanted. Defaults fill only fields the file leaves out (an explicit 0
// stays 0). Validation problems are reported at the value they concern, or
// at the nearest enclosing section for a field left out (labfile.Complete).
// An empty file is the playground's defaults with the rate of a plain lab
// (see labfile.Default).
//
// The error is a *labfile.Error, or labfile.Errors when there are several.
func Parse(file string, data []byte) (*labfile.Lab, error) {
	if e := precheck(file, data); e != nil {
		return nil, e
	}
	f, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	d := newDecoder(file)
	lab := &labfile.Lab{}
	d.document(f, reflect.ValueOf(lab).Elem())
	if len(d.errs) > 0 {
		return nil, d.errs.Capped()
	}
	if err := labfile.Complete(file, lab, func(path string) bool { return d.present[path] }, d.pos); err != nil {
		return nil, err
	}
	return lab, nil
}

// syntaxError converts a goccy/go-yaml error into a *labfile.Error with
// position.
func syntaxError(file string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &labfile.Error{File: file, Msg: "YAML syntax: " + ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Col = tk.Position.Line, tk.Position.Column
		}
		return e
	}
	return &labfile.Error{File: file, Msg: "YAML syntax: " + err.Error()}
}
