package labyaml

import (
	"errors"
	"github.com/goccy/go-yaml/ast"
	"reflect"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

// twoGroups is a lab of two server groups (labfile's apply tests' too).
const twoGroups = `servers:
  - count: 3
  - name: slow
    speed: 0.25
`

// FuzzParse checks that no input crashes Parse, that every error carries a
// message, and that what Parse accepts is valid, clonable and expandable.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		fullExample,
		twoGroups,
		"",
		"name: tiny\n",
		"clients:\n  rat: 100\n",
		"clients:\n  rate: fast\n",
		"servers:\n  - {count: 2, name: pair}\n",
		"x-a: &a {workers: 2}\nservers:\n  - <<: *a\n  - *a\n",
		"events:\n  - {at: 1s, action: add-server}\n  - {at: 2s, action: kill, target: s6}\n",
		"compare:\n  - name: a\n    set: {servers.limiter.min: 50}\n",
		"clients: {work: {mix: [{p: 1, value: 1ms}]}}\n",
		"a: [1, {b: c}]\n---\n- x\n",
		"x-a: &a {<<: [*a, *a]}\nservers: [*a]\n",
		"servers:\n  - &x {workers: 2, work: *x}\n",
		"{",
		"\t",
		// the shapes whose parse grows with the square of their size, small
		"name: x\nx-l:\n-\n-\n- -\n- a:\n-\n",
		"x-m:\n  a:\n  b:\n  c: 1\n  ? d\n  \"e\": 2\n- x\n",
		"x-l: [1, [], {}, a:, 1]\nx-m:\n  k: {a: 1, b:}\n  j:\n  - - 1\n",
		"x-l:\n  - a: 1\n    b: 2\n  - c: 3\n    d:\n      e: 1\n      f: 2\n    g: 3\n",
		// a "? key" whose content starts a line left of the "?": the parser
		// still reads one mapping (found by the fuzzer; the key cap once
		// counted it as two mappings of one key)
		"  ? \n0\n  ? 1",
		"  ? \n0\n  : 3\n  ? 1",
		"x:\n  ? \n#c\n0\n  ? 1\n",
		"  * \n0:\n  ? 0", // an alias's name on the next line
		" !\n0:\n1:",      // a tag above a mapping
		" &a\n0:\n1:\n  &b\n  ? 2\n  ? 3",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkKeyCount(t, data)
		l, err := Parse("fuzz.yaml", data)
		if err != nil {
			checkErrors(t, err)
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("Parse accepted a lab that Validate rejects: %v\n%s", err, data)
		}
		if !reflect.DeepEqual(l, l.Clone()) {
			t.Fatalf("clone differs\n%s", data)
		}
		want := 0
		for _, g := range l.Servers {
			want += g.Count
		}
		if n := len(l.ExpandServers()); n != want || n < 1 {
			t.Fatalf("ExpandServers gave %d servers, want %d", n, want)
		}
		for _, s := range l.Compare {
			if _, err := l.WithSetting(s); err != nil {
				t.Fatalf("a validated compare setting fails: %v\n%s", err, data)
			}
		}
		for _, g := range l.ExpandServers() {
			if l.ServerWork(g.Server) == nil {
				t.Fatal("nil work distribution")
			}
		}
	})
}

func checkErrors(t *testing.T, err error) {
	t.Helper()
	var es labfile.Errors
	var e *labfile.Error
	switch {
	case errors.As(err, &es):
		if len(es) < 2 {
			t.Fatalf("Errors with %d entries", len(es))
		}
		for _, x := range es {
			if x == nil || x.Msg == "" {
				t.Fatalf("empty error in %v", err)
			}
		}
	case errors.As(err, &e):
		if e.Msg == "" {
			t.Fatalf("empty message: %#v", e)
		}
	default:
		t.Fatalf("error of type %T: %v", err, err)
	}
	if strings.TrimSpace(err.Error()) == "" {
		t.Fatal("blank error text")
	}
}

// FuzzApply checks that no path or value crashes Apply and that a lab
// Apply accepts stays valid.
func FuzzApply(f *testing.F) {
	for _, s := range [][2]string{
		{"clients.budget", "0.1"}, {"servers.queue.capacity", "3"}, {"servers[0].work.mix[0].p", "1"},
		{"servers[0].work.dist", "mixture"}, {"balancers.breaker", "x"}, {"clients.rate", "1e400"},
		{"seed", "-1"}, {"network.hop", "9s"}, {"servers[99999999].speed", "1"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, path, value string) {
		l := mustParse(t, twoGroups)
		if err := l.Apply(path, value); err != nil {
			checkErrors(t, err)
			return
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("Apply(%q, %q) left an invalid lab: %v", path, value, err)
		}
	})
}

// checkKeyCount checks that the key cap's count errs towards counting: the
// largest block mapping the parser builds from data has no more keys than
// crowdedColumn counts at its most-counted column.
func checkKeyCount(t *testing.T, data []byte) {
	t.Helper()
	if len(data) > 64<<10 {
		return
	}
	tokens, over := scanTokens(data, MaxTokens)
	if over != nil {
		return
	}
	f, err := parseYAML("fuzz.yaml", data)
	if err != nil {
		return
	}
	most := 0
	for _, d := range f.Docs {
		ast.Walk(visitFunc(func(n ast.Node) {
			if m, ok := n.(*ast.MappingNode); ok && !m.IsFlowStyle && len(m.Values) > most {
				most = len(m.Values)
			}
		}), d)
	}
	if most > 1 && crowdedColumn(tokens, most-1) == nil {
		t.Fatalf("the parser built a block mapping of %d keys that the key cap counts fewer of\n%s", most, data)
	}
}

type visitFunc func(ast.Node)

func (v visitFunc) Visit(n ast.Node) ast.Visitor { v(n); return v }
