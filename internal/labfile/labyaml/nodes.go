package labyaml

import (
	"math"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/lblab/lblab/internal/labfile"
)

// Helpers reading goccy/go-yaml AST nodes.

// describe names a node's kind for "want X, got Y" messages.
func describe(n ast.Node) string {
	switch n.Type() {
	case ast.MappingType, ast.MappingValueType:
		return "a mapping"
	case ast.SequenceType:
		return "a list"
	}
	return labfile.Quote(n.String())
}

// pairs returns the key/value pairs of a mapping node (a one-pair mapping
// can come as a bare MappingValueNode).
func pairs(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch x := n.(type) {
	case *ast.MappingNode:
		return x.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{x}, true
	}
	return nil, false
}

// keyText returns a mapping key as plain text; ok is false for keys that are
// not scalars.
func keyText(k ast.MapKeyNode) (string, bool) {
	switch x := k.(type) {
	case *ast.StringNode:
		return x.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NullNode:
		return x.GetToken().Value, true
	}
	return "", false
}

// nodeToken is the token to report a node at: a mapping's first key (its own
// token is a ':'), else the node's first token.
func nodeToken(n ast.Node) *token.Token {
	if n == nil {
		return nil
	}
	if ps, ok := pairs(n); ok && len(ps) > 0 && ps[0].Key != nil {
		return ps[0].Key.GetToken()
	}
	return n.GetToken()
}

func tokenPos(tk *token.Token) labfile.Pos {
	if tk == nil || tk.Position == nil {
		return labfile.Pos{}
	}
	return labfile.Pos{Line: tk.Position.Line, Col: tk.Position.Column}
}

// scalarValue is one scalar as written: its text and, for YAML numbers and
// booleans, the value the YAML parser decoded (labfile.SetScalar's two).
type scalarValue struct {
	text    string
	decoded any
}

// scalarOf returns the text (and decoded value) of a scalar node.
func scalarOf(n ast.Node) (scalarValue, bool) {
	switch x := n.(type) {
	case *ast.StringNode:
		return scalarValue{text: x.Value}, true
	case *ast.LiteralNode:
		if x.Value == nil {
			return scalarValue{}, true
		}
		return scalarValue{text: x.Value.Value}, true
	case *ast.IntegerNode:
		return scalarValue{text: x.Token.Value, decoded: x.Value}, true
	case *ast.FloatNode:
		return scalarValue{text: x.Token.Value, decoded: x.Value}, true
	case *ast.BoolNode:
		return scalarValue{text: x.Token.Value, decoded: x.Value}, true
	case *ast.InfinityNode:
		return scalarValue{text: x.Token.Value, decoded: x.Value}, true
	case *ast.NanNode:
		return scalarValue{text: x.Token.Value, decoded: math.NaN()}, true
	}
	return scalarValue{}, false
}
