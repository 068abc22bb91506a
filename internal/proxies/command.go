package proxies

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"text/template/parse"
)

// templateFuncs are the functions text/template gives every template: the
// names a kind: command template may call. (The renderer, in internal/lab,
// is text/template itself; labfile only parses, with text/template/parse,
// so that reading a lab file links no template engine and no net/url.)
var templateFuncs = map[string]any{}

func init() {
	for _, f := range []string{"and", "call", "html", "index", "slice", "js", "len", "not", "or",
		"print", "printf", "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne"} {
		templateFuncs[f] = true
	}
}

// templateFields are the fields a kind: command template may name: those
// of CommandData and of each of its Servers.
var templateFields = func() []string {
	var out []string
	for _, t := range []reflect.Type{reflect.TypeFor[CommandData](), reflect.TypeFor[CommandServer]()} {
		for i := range t.NumField() {
			out = append(out, t.Field(i).Name)
		}
	}
	return out
}()

// checkTemplate parses a kind: command template and checks that every
// field it names ({{.Listen}}, {{.Addr}} in a range over .Servers) is one
// the proxy's data has, so that a typo is refused at the lab's line before
// anything starts. The lab renders the templates when it starts the proxy.
func checkTemplate(name, text string) error {
	trees, err := parse.Parse(name, text, "", "", templateFuncs)
	if err != nil {
		return err
	}
	var bad error
	var walk func(tr *parse.Tree, n parse.Node)
	walkBranch := func(tr *parse.Tree, b *parse.BranchNode) {
		walk(tr, b.Pipe)
		walk(tr, b.List)
		walk(tr, b.ElseList)
	}
	walk = func(tr *parse.Tree, n parse.Node) {
		if bad != nil || n == nil || reflect.ValueOf(n).IsNil() {
			return
		}
		switch n := n.(type) {
		case *parse.ListNode:
			for _, c := range n.Nodes {
				walk(tr, c)
			}
		case *parse.ActionNode:
			walk(tr, n.Pipe)
		case *parse.PipeNode:
			for _, c := range n.Cmds {
				walk(tr, c)
			}
		case *parse.CommandNode:
			for _, a := range n.Args {
				walk(tr, a)
			}
		case *parse.ChainNode:
			walk(tr, n.Node)
			bad = fieldError(tr, n, n.Field)
		case *parse.FieldNode:
			bad = fieldError(tr, n, n.Ident)
		case *parse.VariableNode:
			bad = fieldError(tr, n, n.Ident[1:])
		case *parse.IfNode:
			walkBranch(tr, &n.BranchNode)
		case *parse.RangeNode:
			walkBranch(tr, &n.BranchNode)
		case *parse.WithNode:
			walkBranch(tr, &n.BranchNode)
		case *parse.TemplateNode:
			walk(tr, n.Pipe)
		}
	}
	for _, tr := range trees {
		walk(tr, tr.Root)
	}
	return bad
}

// fieldError names the first of fields the template is not given, or is nil.
func fieldError(tr *parse.Tree, n parse.Node, fields []string) error {
	i := slices.IndexFunc(fields, func(f string) bool { return !slices.Contains(templateFields, f) })
	if i < 0 {
		return nil
	}
	field := fields[i]
	at, _ := tr.ErrorContext(n)
	return fmt.Errorf("template: %s: there is no field %s: the template is given %s", at, field, strings.Join(templateFields, ", "))
}
