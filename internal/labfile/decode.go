package labfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Load reads the lab file at path and parses it (see Parse). It reads no
// more than one byte over MaxFileSize, so a huge file is refused without
// being read whole. A file with nothing but blank lines and comments is an
// error (a mistake, not a lab); a lab without a name is named after its file
// (my-lab.yaml: my-lab).
func Load(path string) (*Lab, error) {
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
func ParseFile(path string, data []byte) (*Lab, error) {
	if len(data) <= MaxFileSize && blank(data) { // too big is Parse's to say
		return nil, &Error{File: path, Msg: "the lab file is empty: give at least its name (name: my-lab); docs/labfile.md has every section"}
	}
	lab, err := Parse(path, data)
	if err == nil && lab.Name == "" {
		base := filepath.Base(path)
		lab.Name = strings.TrimSuffix(base, filepath.Ext(base))
		if msg := CheckPrintable(lab.Name, false); msg != "" { // a name is printable text, wherever it comes from
			return nil, &Error{File: path, Field: "name", Msg: "none given, and the file's name " + msg + ": give the lab a name (name: my-lab)"}
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
// at the nearest enclosing section for a field left out. An empty file is
// the playground's defaults with the rate of a plain lab (see Default).
//
// The error is an *Error, or Errors when there are several.
func Parse(file string, data []byte) (*Lab, error) {
	if e := precheck(file, data); e != nil {
		return nil, e
	}
	f, err := parseYAML(file, data)
	if err != nil {
		return nil, err
	}
	d := &decoder{rep: reporter{file: file, pos: positions{}}, present: map[string]bool{}, anchors: map[string]ast.Node{}, active: map[ast.Node]bool{}}
	lab := &Lab{}
	d.document(f, reflect.ValueOf(lab).Elem())
	if len(d.rep.errs) > 0 {
		return nil, capErrors(d.rep.errs).result()
	}
	applyDefaults(lab, func(path string) bool { return d.present[path] })
	v := &reporter{file: file, pos: d.rep.pos}
	validateLab(lab, v)
	if len(v.errs) > 0 {
		v.errs.sortByPosition()
		return nil, capErrors(v.errs).result()
	}
	return lab, nil
}

// capErrors keeps the first maxErrors problems and says how many were cut.
func capErrors(es Errors) Errors {
	if len(es) <= maxErrors {
		return es
	}
	rest := len(es) - maxErrors
	out := append(Errors(nil), es[:maxErrors]...)
	return append(out, &Error{File: es[0].File, Msg: fmt.Sprintf("... and %d more problems", rest)})
}

// syntaxError converts a goccy/go-yaml error into an *Error with position.
func syntaxError(file string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &Error{File: file, Msg: "YAML syntax: " + ye.GetMessage()}
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			e.Line, e.Col = tk.Position.Line, tk.Position.Column
		}
		return e
	}
	return &Error{File: file, Msg: "YAML syntax: " + err.Error()}
}
