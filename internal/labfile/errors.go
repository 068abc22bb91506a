package labfile

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lblab/lblab/internal/suggest"
)

// Error is a lab-file problem with its position.
//
// File, Line and Col locate the value (or the key, for an unknown field) in
// the lab file; they are empty or zero when unknown, e.g. for a lab built in
// code or a value set with Apply. Field is the dotted yaml path of the field,
// like clients.rate or servers[1].queue.discipline.
type Error struct {
	File      string
	Line, Col int
	Field     string
	Msg       string
}

// Error formats the error as "FILE:LINE:COL: FIELD: MSG", leaving out the
// parts that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	loc := e.File
	if e.Line > 0 {
		if loc != "" {
			loc += ":"
		}
		loc += strconv.Itoa(e.Line)
		if e.Col > 0 {
			loc += ":" + strconv.Itoa(e.Col)
		}
	}
	if loc != "" {
		b.WriteString(loc)
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is several lab-file problems, in file order where positions are
// known. Its Error joins them one per line.
type Errors []*Error

func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// result turns a list of problems into the error a function returns: nil for
// none, the *Error itself for one, Errors for several.
func (es Errors) result() error {
	switch len(es) {
	case 0:
		return nil
	case 1:
		return es[0]
	}
	return es
}

// Capped is the error one parse of a lab file returns for its problems es:
// nil for none, the *Error itself for one, else Errors of the first 30
// (maxErrors) and one more saying how many were left out. labyaml's decoder
// returns its own problems so, and Complete the lab's.
func (es Errors) Capped() error {
	return capErrors(es).result()
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

// sortByPosition orders errors by line and column; errors without a
// position keep their relative order after the positioned ones.
func (es Errors) sortByPosition() {
	sort.SliceStable(es, func(i, j int) bool {
		a, b := es[i], es[j]
		if (a.Line > 0) != (b.Line > 0) {
			return a.Line > 0
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// maxErrors caps how many problems one parse of a lab file reports
// (Errors.Capped); the rest are summarised.
const maxErrors = 30

// Pos is a line and column in the lab file (1-based; 0 = unknown).
type Pos struct{ Line, Col int }

// Positions maps dotted yaml paths to where their values sit in the file:
// labyaml's decoder records them, and Complete reports the lab's problems at
// them.
type Positions map[string]Pos

// Find returns the position of path, or of its nearest ancestor that has
// one (a field left out of the file is reported at its section).
func (p Positions) Find(path string) Pos {
	for path != "" {
		if at, ok := p[path]; ok {
			return at
		}
		path = parentPath(path)
	}
	return Pos{}
}

// parentPath drops the last ".name" or "[i]" of a dotted path.
func parentPath(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// JoinPath appends a field name to a dotted path (clients + rate:
// clients.rate), as Error.Field and Positions write paths.
func JoinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// IndexPath appends a list index to a dotted path (servers + 1:
// servers[1]), as Error.Field and Positions write paths.
func IndexPath(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// reporter collects problems, locating each by its path.
type reporter struct {
	file string
	pos  Positions // nil when the lab did not come from a file
	errs Errors
	// allowed, when not nil, records what each check allows at its path
	// (AllowedAt): the checks are the one place a path meets its range.
	allowed map[string]Allowed
}

func (r *reporter) add(field, format string, args ...any) {
	at := r.pos.Find(field)
	r.errs = append(r.errs, &Error{File: r.file, Line: at.Line, Col: at.Col, Field: field, Msg: fmt.Sprintf(format, args...)})
}

// Quote quotes text from the file for a message, cut to 60 bytes: how every
// message of a lab file's problems shows a value.
func Quote(s string) string {
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return strconv.Quote(s)
}

// unknownKeyMsg says a key is not allowed, suggesting the nearest allowed one.
func unknownKeyMsg(key, where string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %s in %s", Quote(key), where)
	if s := suggest.Nearest(key, allowed); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	}
	return msg + " (allowed: " + strings.Join(allowed, ", ") + ")"
}

// num formats a float without exponent noise: 1000000, 0.25; only a huge
// or tiny number gets an exponent (1e+308), not hundreds of digits.
func num(f float64) string {
	if a := math.Abs(f); a != 0 && (a >= 1e21 || a < 1e-6) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// oneOfEnum is oneOf for a setting's word type.
func oneOfEnum[T ~string](r *reporter, path string, got T, allowed ...T) {
	r.oneOf(path, string(got), names(allowed)...)
}

func (r *reporter) oneOf(path, got string, allowed ...string) {
	r.allow(path, Allowed{Words: allowed})
	if slices.Contains(allowed, got) {
		return
	}
	msg := fmt.Sprintf("must be one of %s; got %s", strings.Join(allowed, ", "), Quote(got))
	if s := suggest.Nearest(got, allowed); s != "" && got != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	r.add(path, "%s", msg)
}
