package labyaml

import (
	"fmt"
	"io"
	"slices"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/scanner"
	"github.com/goccy/go-yaml/token"

	"github.com/lblab/lblab/internal/labfile"
)

// Caps on a lab file's YAML tokens, checked between the scanner and the
// parser. The parser's time grows with the square of some shapes' size:
// every implicit null (an empty list entry "-", a key without a value) is
// inserted into its token array, moving every token after it, and a block
// mapping's keys are gathered by one recursive call per key, each copying
// the keys after it. 512k empty entries (a 1 MiB file) ran over 110 s; 32k
// keys of one mapping allocated gigabytes, 4,096 keys take about 50 ms and
// 70 MB. The keys are capped per column of the file (see crowdedColumn), which
// bounds every mapping's. A lab file has a few hundred tokens and keys, so
// the caps are far above any lab and keep the worst 1 MiB file's parse to a
// fraction of a second.
const (
	MaxTokens     = 1 << 15
	MaxColumnKeys = 1 << 12
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
			f, e = nil, &labfile.Error{File: file, Msg: fmt.Sprintf("YAML syntax: the YAML parser failed on this input (%v)", r)}
		}
	}()
	tokens, cap := scanTokens(data, MaxTokens)
	if cap != nil {
		return nil, capError(file, cap, tokenCapMsg)
	}
	if tk := crowdedColumn(tokens, MaxColumnKeys); tk != nil {
		return nil, capError(file, tk, fmt.Sprintf("the file has more than %d mapping keys at this column by here; a lab file has a few hundred keys in all (%s)", MaxColumnKeys, squareCost))
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, syntaxError(file, err)
	}
	return f, nil
}

func capError(file string, tk *token.Token, msg string) *labfile.Error {
	p := tokenPos(tk)
	return &labfile.Error{File: file, Line: p.Line, Col: p.Col, Msg: msg}
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

// crowdedColumn returns the key that takes one column of the file past max
// block-mapping keys, or nil. It counts every key outside flow collections
// at each column its mapping might start at: the column of the key's first
// token after the line's last indicator ("- ", "? ", ": "), the column of
// its ':' when the key sits on a line above it, and the column of each
// alias, anchor or tag that stands in front of it, on its line or above.
// The keys of one mapping share a column, so no mapping has more keys than
// the most-counted column. Counting the whole file's keys per column, rather
// than following where mappings open and close, over-counts on purpose: the
// parser reads some malformed shapes (a "?" whose key starts a line further
// left, an alias whose name is on the next line) as one mapping where the
// indentation says two, and a count that follows the indentation missed them.
func crowdedColumn(tokens token.Tokens, max int) *token.Token {
	count := map[int]int{}
	flow := 0
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
		if flow > 0 {
			continue
		}
		var cols []int
		at := tk // where the key starts, for the message
		switch {
		case tk.Type == token.MappingKeyType: // "? key"
			cols = append(cols, tk.Position.Column)
		case tk.Type == token.MappingValueType && i > 0 && tokens[i-1].Position != nil:
			key := tokens[i-1]
			j := i - 1 // the key starts after the line's last indicator
			for j > 0 && tokens[j-1].Position != nil && tokens[j-1].Position.Line == key.Position.Line && !indicator(tokens[j-1].Type) && tokens[j-1].Type != token.CommentType {
				j--
			}
			at = tokens[j]
			cols = append(cols, tokens[j].Position.Column, key.Position.Column)
			if key.Position.Line != tk.Position.Line { // a key on a line above its ':'
				cols = append(cols, tk.Position.Column)
			}
			for k := j - 1; k >= 0 && tokens[k].Position != nil && (property(tokens[k].Type) || tokens[k].Type == token.CommentType); k-- {
				cols = append(cols, tokens[k].Position.Column)
			}
		default:
			continue
		}
		slices.Sort(cols)
		for _, c := range slices.Compact(cols) {
			count[c]++
			if count[c] > max {
				return at
			}
		}
	}
	return nil
}

// property says whether t is an alias, an anchor or a tag: the start of
// the node it stands in front of, possibly on a line above.
func property(t token.Type) bool {
	return t == token.AliasType || t == token.AnchorType || t == token.TagType
}

func indicator(t token.Type) bool {
	return t == token.SequenceEntryType || t == token.MappingKeyType || t == token.MappingValueType
}
