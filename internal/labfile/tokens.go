package labfile

import (
	"fmt"
	"io"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"
)

// Caps on a lab file's YAML tokens, checked between the scanner and the
// parser. The parser's time grows with the square of some shapes' size:
// every implicit null (an empty list entry "-", a key without a value) is
// inserted into its token array, moving every token after it, and a block
// mapping's keys are gathered by one recursive call per key, each copying
// the keys after it. 512k empty entries (a 1 MiB file) ran over 110 s; 32k
// keys of one mapping allocated gigabytes. A lab file has a few hundred
// tokens and its largest mapping a few dozen keys, so the caps are far above
// any lab and keep the worst 1 MiB file's parse to a fraction of a second.
const (
	MaxTokens      = 1 << 15
	MaxMappingKeys = 1 << 10
)

// squareCost says why the token caps exist, in their messages.
const squareCost = "the YAML parser's time grows with the square of the size in some shapes"

var tokenCapMsg = fmt.Sprintf("the file has more than %d YAML tokens (keys, values, list entries, brackets, comments) by here; a lab file has a few hundred (%s)", MaxTokens, squareCost)

// parseYAML scans data into tokens, refusing a file over MaxTokens tokens
// or with a block mapping of over MaxMappingKeys keys before the parser sees
// it, then parses the tokens into goccy/go-yaml's AST. The scanner and the
// parser are third-party code; should either panic on some input, that
// becomes an error, since no input may crash the caller.
func parseYAML(file string, data []byte) (f *ast.File, e error) {
	defer func() {
		if r := recover(); r != nil {
			f, e = nil, &Error{File: file, Msg: fmt.Sprintf("YAML syntax: the YAML parser failed on this input (%v)", r)}
		}
	}()
	tokens, cap := scanTokens(data, MaxTokens)
	if cap != nil {
		return nil, capError(file, cap, tokenCapMsg)
	}
	if tk := crowdedMapping(tokens, MaxMappingKeys); tk != nil {
		return nil, capError(file, tk, fmt.Sprintf("this mapping has more than %d keys; a lab file's largest has a few dozen (%s)", MaxMappingKeys, squareCost))
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, syntaxError(file, err)
	}
	return f, nil
}

func capError(file string, tk *token.Token, msg string) *Error {
	p := tokenPos(tk)
	return &Error{File: file, Line: p.line, Col: p.col, Msg: msg}
}

// scanTokens scans data as lexer.Tokenize does, but stops at the first
// token past max and returns it as over.
func scanTokens(data []byte, max int) (tokens token.Tokens, over *token.Token) {
	var s scanner.Scanner
	s.Init(string(data))
	for {
		sub, err := s.Scan()
		if err == io.EOF {
			return tokens, nil
		}
		for _, tk := range sub {
			if len(tokens) == max {
				return nil, tk
			}
			tokens.Add(tk)
		}
	}
}

// crowdedMapping returns the key that takes a block mapping past max keys,
// or nil. A key is what comes before a ':' outside flow collections, from
// the line's last indicator on (a tag or an anchor in front is part of it); keys at
// the same column belong to one mapping until a line starts left of them.
// It errs towards counting: a key it misses would have to sit in a mapping
// the parser also reads as one.
func crowdedMapping(tokens token.Tokens, max int) *token.Token {
	type open struct{ col, keys int }
	var stack []open
	flow, line := 0, 0
	for i, tk := range tokens {
		if tk.Position == nil {
			continue
		}
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		}
		if flow > 0 || tk.Type == token.CommentType {
			continue
		}
		if tk.Position.Line != line { // the first token of a line closes the mappings right of it
			line = tk.Position.Line
			for len(stack) > 0 && stack[len(stack)-1].col > tk.Position.Column {
				stack = stack[:len(stack)-1]
			}
		}
		var key *token.Token
		var col int
		switch {
		case tk.Type == token.MappingKeyType: // "? key"
			key, col = tk, tk.Position.Column
		case tk.Type == token.MappingValueType && i > 0 && tokens[i-1].Position != nil:
			key = tokens[i-1]
			j := i - 1 // the key starts after the line's last indicator: "- ", "? " or ": "
			for j > 0 && tokens[j-1].Position != nil && tokens[j-1].Position.Line == key.Position.Line && !indicator(tokens[j-1].Type) {
				j--
			}
			col = tokens[j].Position.Column
			if key.Position.Line != tk.Position.Line { // a key on a line before its ':'
				col = min(col, tk.Position.Column)
			}
		default:
			continue
		}
		for len(stack) > 0 && stack[len(stack)-1].col > col {
			stack = stack[:len(stack)-1]
		}
		if n := len(stack); n > 0 && stack[n-1].col == col {
			stack[n-1].keys++
			if stack[n-1].keys > max {
				return key
			}
			continue
		}
		stack = append(stack, open{col, 1})
	}
	return nil
}

func indicator(t token.Type) bool {
	return t == token.SequenceEntryType || t == token.MappingKeyType || t == token.MappingValueType
}
