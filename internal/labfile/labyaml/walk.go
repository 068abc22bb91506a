package labyaml

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/lblab/lblab/internal/labfile"
)

// decoder fills labfile's schema structs from a YAML AST, recording where
// every value sits and which fields the file sets.
type decoder struct {
	file    string
	pos     labfile.Positions   // where each dotted path's value sits
	errs    labfile.Errors      // the problems found, in the order met
	present map[string]bool     // dotted paths the file gives a non-null value
	anchors map[string]ast.Node // &name -> node, as met in document order
	nodes   int                 // values decoded, to bound alias expansion
	depth   int                 // mappings being decoded, to stop recursive merges
	limited bool                // a limit was hit (reported once)
	active  map[ast.Node]bool   // mappings being decoded: an alias to one is recursive
}

func newDecoder(file string) *decoder {
	return &decoder{file: file, pos: labfile.Positions{}, present: map[string]bool{}, anchors: map[string]ast.Node{}, active: map[ast.Node]bool{}}
}

// maxDepth bounds mapping nesting; the schema is 5 deep, merges add a few.
const maxDepth = 32

// maxNodes bounds how many values one file may expand to (aliases can repeat
// a subtree); far above any real lab.
const maxNodes = 1 << 17

func (d *decoder) errorAt(tk *token.Token, field, format string, args ...any) {
	e := &labfile.Error{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if tk != nil && tk.Position != nil {
		e.Line, e.Col = tk.Position.Line, tk.Position.Column
	}
	d.errs = append(d.errs, e)
}

func (d *decoder) document(f *ast.File, lab reflect.Value) {
	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if body != nil {
			d.errorAt(doc.Body.GetToken(), "", "a lab file holds one YAML document; found a second one")
			return
		}
		body = doc.Body
	}
	if body == nil {
		return
	}
	d.value("", body, lab, body.GetToken())
}

// resolve unwraps tags and anchors (recording them) and follows aliases. It
// returns nil for a null value.
func (d *decoder) resolve(n ast.Node, path string) ast.Node {
	for depth := 0; n != nil && depth < 100; depth++ {
		switch x := n.(type) {
		case *ast.TagNode:
			n = x.Value
		case *ast.AnchorNode:
			if x.Name != nil && x.Value != nil {
				d.anchors[x.Name.String()] = x.Value
			}
			n = x.Value
		case *ast.AliasNode:
			name := ""
			if x.Value != nil {
				name = x.Value.String()
			}
			target, ok := d.anchors[name]
			if !ok {
				d.errorAt(x.GetToken(), path, "alias *%s names no anchor defined before it", name)
				return nil
			}
			n = target
		case *ast.NullNode:
			return nil
		case *ast.CommentNode, *ast.CommentGroupNode:
			return nil
		default:
			return n
		}
	}
	return n
}

// value decodes node n into v (addressable) at path; at is where to report
// n (the key's token for a section, the value's for a scalar).
func (d *decoder) value(path string, n ast.Node, v reflect.Value, at *token.Token) {
	n = d.resolve(n, path)
	if n == nil {
		return
	}
	if d.overLimit(n, path) {
		return
	}
	d.present[path] = true
	if tk := n.GetToken(); tk != nil && tk.Position != nil && labfile.IsScalar(v.Type()) {
		at = tk
	}
	if at != nil && at.Position != nil {
		d.pos[path] = labfile.Pos{Line: at.Position.Line, Col: at.Position.Column}
	}
	switch v.Kind() {
	case reflect.Struct:
		if labfile.IsScalar(v.Type()) { // a struct that reads itself from text
			d.scalar(path, n, v)
			return
		}
		d.mapping(path, n, v, at)
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.value(path, n, v.Elem(), at)
	case reflect.Slice:
		d.sequence(path, n, v, at)
	case reflect.Map:
		d.stringMap(path, n, v, at)
	default:
		d.scalar(path, n, v)
	}
}

// overLimit counts a value or mapping and reports (once) when the file
// expands beyond maxNodes values or mappings nest beyond maxDepth.
func (d *decoder) overLimit(n ast.Node, path string) bool {
	d.nodes++
	if d.nodes <= maxNodes && d.depth < maxDepth && !d.limited {
		return false
	}
	if !d.limited {
		d.limited = true
		msg := fmt.Sprintf("the file expands to more than %d values (aliases repeating aliases?)", maxNodes)
		if d.depth >= maxDepth {
			msg = "mappings nest too deep (merge keys through aliases?)"
		}
		d.errorAt(nodeToken(n), path, "%s", msg)
	}
	return true
}

// mapping decodes a YAML mapping into struct v, rejecting unknown keys.
// Merge keys (<<: *base) are applied first, so explicit keys win.
func (d *decoder) mapping(path string, n ast.Node, v reflect.Value, at *token.Token) {
	ps, ok := pairs(n)
	if !ok {
		d.errorAt(nodeToken(n), path, "want a mapping of fields (%s), got %s", strings.Join(labfile.SchemaOf(v.Type()).Names(), ", "), describe(n))
		return
	}
	if d.active[n] {
		d.errorAt(nodeToken(n), path, "an alias inside its own anchor would repeat forever")
		return
	}
	if d.overLimit(n, path) {
		return
	}
	d.depth++
	d.active[n] = true
	defer func() { d.depth--; delete(d.active, n) }()
	schema := labfile.SchemaOf(v.Type())
	var explicit []*ast.MappingValueNode
	for _, p := range ps {
		if p.Key != nil && p.Key.IsMergeKey() {
			d.merge(path, p.Value, v)
			continue
		}
		explicit = append(explicit, p)
	}
	for _, p := range explicit {
		d.pair(path, p, v, schema)
	}
}

// merge applies a merge key's value: a mapping or a list of mappings.
func (d *decoder) merge(path string, n ast.Node, v reflect.Value) {
	n = d.resolve(n, path)
	if seq, ok := n.(*ast.SequenceNode); ok {
		for _, item := range seq.Values {
			d.merge(path, item, v)
		}
		return
	}
	if n != nil {
		d.mapping(path, n, v, n.GetToken())
	}
}

func (d *decoder) pair(path string, p *ast.MappingValueNode, v reflect.Value, schema labfile.Schema) {
	if p.Key == nil {
		return
	}
	name, ok := keyText(p.Key)
	if !ok {
		d.errorAt(p.Key.GetToken(), path, "keys must be plain names, got %s", describe(p.Key))
		return
	}
	if path == "" && strings.HasPrefix(name, "x-") {
		d.extension(p.Value)
		return
	}
	index, ok := schema.Field(name)
	if !ok {
		where := path
		if where == "" {
			where = "the lab"
		}
		d.errorAt(p.Key.GetToken(), labfile.JoinPath(path, name), "%s", schema.Unknown(name, where))
		return
	}
	d.value(labfile.JoinPath(path, name), p.Value, v.FieldByIndex(index), p.Key.GetToken())
}

// extension handles a top-level x-... key: its value is not part of the lab
// but may define anchors (x-server: &fast {workers: 4}) for later aliases.
func (d *decoder) extension(n ast.Node) {
	ast.Walk(anchorCollector(d.anchors), n)
}

// anchorCollector records every anchor under a node.
type anchorCollector map[string]ast.Node

func (a anchorCollector) Visit(n ast.Node) ast.Visitor {
	if x, ok := n.(*ast.AnchorNode); ok && x.Name != nil && x.Value != nil {
		a[x.Name.String()] = x.Value
	}
	return a
}

// sequence decodes a YAML list into slice v.
func (d *decoder) sequence(path string, n ast.Node, v reflect.Value, at *token.Token) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.errorAt(nodeToken(n), path, "want a list, got %s", describe(n))
		return
	}
	if len(seq.Values) == 0 {
		v.Set(reflect.Zero(v.Type())) // [] is present but nil, like a left-out list
		return
	}
	out := reflect.MakeSlice(v.Type(), 0, len(seq.Values))
	for i, item := range seq.Values {
		elem := reflect.New(v.Type().Elem()).Elem()
		d.value(labfile.IndexPath(path, i), item, elem, nodeToken(item))
		out = reflect.Append(out, elem)
	}
	v.Set(out)
}

// stringMap decodes a mapping of plain keys to scalars (Setting.Set,
// Event.Set). Any scalar is kept as its text: budget: 0.1 gives "0.1".
func (d *decoder) stringMap(path string, n ast.Node, v reflect.Value, at *token.Token) {
	ps, ok := pairs(n)
	if !ok {
		d.errorAt(nodeToken(n), path, "want a mapping of dotted paths to values (clients.budget: 0.1), got %s", describe(n))
		return
	}
	if len(ps) == 0 {
		return
	}
	m := reflect.MakeMapWithSize(v.Type(), len(ps))
	for _, p := range ps {
		key, ok := "", p.Key != nil && !p.Key.IsMergeKey()
		if ok {
			key, ok = keyText(p.Key)
		}
		if !ok {
			d.errorAt(at, path, "keys must be plain dotted paths like clients.budget")
			continue
		}
		sub := labfile.JoinPath(path, key)
		d.pos[sub] = tokenPos(p.Key.GetToken())
		val := reflect.New(v.Type().Elem()).Elem()
		if vn := d.resolve(p.Value, sub); vn != nil {
			d.scalar(sub, vn, val)
		}
		m.SetMapIndex(reflect.ValueOf(key), val)
	}
	v.Set(m)
}

// scalar decodes a YAML scalar into v.
func (d *decoder) scalar(path string, n ast.Node, v reflect.Value) {
	sv, ok := scalarOf(n)
	if !ok {
		d.errorAt(nodeToken(n), path, "want %s, got %s", labfile.ScalarWant(v.Type()), describe(n))
		return
	}
	if err := labfile.SetScalar(v, sv.text, sv.decoded); err != nil {
		d.errorAt(n.GetToken(), path, "%v", err)
	}
}
