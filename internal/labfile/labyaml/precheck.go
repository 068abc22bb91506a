package labyaml

import (
	"bytes"
	"fmt"

	"github.com/lblab/lblab/internal/labfile"
)

// Caps on a lab file, checked before the YAML parser sees it: the parser's
// memory grows with the nesting depth times the size (100 KB of [[[...]]]
// took it 3.85 GB), and a lab file is a few KB nested a few levels deep.
const (
	MaxFileSize = 1 << 20
	MaxDepth    = 64
)

// precheck refuses a file over MaxFileSize bytes or nested deeper than
// MaxDepth, naming the line where the depth is passed.
func precheck(file string, data []byte) *labfile.Error {
	if len(data) > MaxFileSize {
		return &labfile.Error{File: file, Msg: fmt.Sprintf("the file is over %d bytes (1 MiB), the most a lab file may have", MaxFileSize)}
	}
	if line, col, ok := tooDeep(data, MaxDepth); ok {
		return &labfile.Error{File: file, Line: line, Col: col, Msg: fmt.Sprintf("the YAML nests more than %d levels deep here (a lab file needs about 5)", MaxDepth)}
	}
	return nil
}

// tooDeep scans YAML text for its nesting depth without parsing it: flow
// collections ([ and {) count while open, and block collections count by
// indentation (each deeper indentation, and each "- " of a line, is one
// more level). Quoted text, comments and block scalars (| and >) are
// skipped. It returns the 1-based line and column where depth first passes
// max. It errs towards counting (a bracket that opens a plain scalar in
// block context is not counted; one inside a flow collection is).
func tooDeep(data []byte, max int) (line, col int, deep bool) {
	var block []int    // columns of the open block levels
	flow := 0          // open [ and {
	quote := byte(0)   // the quote a multi-line quoted scalar is open with
	scalarIndent := -1 // inside a block scalar: lines indented more than this are text
	for n, raw := range bytes.Split(data, []byte("\n")) {
		text := bytes.TrimRight(raw, "\r")
		indent := len(text) - len(bytes.TrimLeft(text, " "))
		blank := len(bytes.TrimSpace(text)) == 0
		if scalarIndent >= 0 {
			if blank || indent > scalarIndent {
				continue
			}
			scalarIndent = -1
		}
		i := indent
		if quote == 0 && flow == 0 {
			if blank || text[i] == '#' {
				continue
			}
			for len(block) > 0 && block[len(block)-1] >= indent {
				block = block[:len(block)-1]
			}
			block = append(block, indent)
			for i+1 < len(text) && (text[i] == '-' || text[i] == '?') && text[i+1] == ' ' { // "- - x": nested entries
				i += 2
				for i < len(text) && text[i] == ' ' {
					i++
				}
				block = append(block, i)
				if len(block) > max {
					return n + 1, i + 1, true
				}
			}
			if len(block) > max {
				return n + 1, indent + 1, true
			}
		}
		// valueStart: the next character may begin a node (only then does a
		// bracket open a flow collection in block context).
		valueStart := quote == 0 && flow == 0
	chars:
		for ; i < len(text); i++ {
			c := text[i]
			if quote != 0 {
				switch {
				case c == '\\' && quote == '"':
					i++
				case c == quote && quote == '\'' && i+1 < len(text) && text[i+1] == '\'':
					i++ // '' inside '...'
				case c == quote:
					quote = 0
				}
				continue
			}
			next := byte(' ')
			if i+1 < len(text) {
				next = text[i+1]
			}
			switch {
			case c == ' ' || c == '\t':
			case c == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t'):
				break chars // a comment
			case c == '"' || c == '\'':
				if valueStart || flow > 0 {
					quote = c
				}
				valueStart = false
			case c == '[' || c == '{':
				if valueStart || flow > 0 {
					flow++
					valueStart = true
					if len(block)+flow > max {
						return n + 1, i + 1, true
					}
				}
			case (c == ']' || c == '}') && flow > 0:
				flow--
				valueStart = false
			case (c == '|' || c == '>') && valueStart && flow == 0:
				scalarIndent = indent // the rest of the value is text
				break chars
			case (c == '&' || c == '!') && valueStart: // an anchor or a tag before the node
				for i+1 < len(text) && text[i+1] != ' ' {
					i++
				}
			case c == ':' && (next == ' ' || next == '\t'), c == ',' && flow > 0,
				c == '-' && valueStart && (next == ' ' || next == '\t'):
				valueStart = true
			default:
				valueStart = false
			}
		}
	}
	return 0, 0, false
}
