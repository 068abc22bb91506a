package archtest

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
)

// layersDoc is where the layer list is declared: the first code block
// under "## Layers" of the architecture page, one layer a line, from the
// top down.
const layersDoc = "../../docs/architecture.md"

// layer is one line of the list: its module patterns, as the other rules
// write them ("./internal/lab", "./internal/core/...").
type layer struct {
	line     int
	patterns []string
}

// readLayers parses the layer block of the architecture page.
func readLayers(text string) ([]layer, error) {
	_, after, ok := strings.Cut(text, "\n## Layers\n")
	if !ok {
		return nil, fmt.Errorf("no \"## Layers\" section")
	}
	_, block, ok := strings.Cut(after, "\n```\n")
	if !ok {
		return nil, fmt.Errorf("no code block under \"## Layers\"")
	}
	block, _, ok = strings.Cut(block, "\n```")
	if !ok {
		return nil, fmt.Errorf("the layer block is not closed")
	}
	first := strings.Count(text[:len(text)-len(after)], "\n") + strings.Count(after[:strings.Index(after, block)], "\n") + 1
	gap := regexp.MustCompile(`\s{2,}`)
	var layers []layer
	for i, line := range strings.Split(block, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if line[0] == ' ' {
			return nil, fmt.Errorf("line %d: a layer is one line (no continuation lines)", first+i)
		}
		names := gap.Split(line, 2)[0]
		l := layer{line: first + i}
		for _, n := range splitOutsideBraces(names) {
			for _, p := range expandBraces(strings.TrimSpace(n)) {
				l.patterns = append(l.patterns, "./"+p)
			}
		}
		layers = append(layers, l)
	}
	return layers, nil
}

// splitOutsideBraces splits s at the commas that are not inside {...}.
func splitOutsideBraces(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// expandBraces spells out one {a,b,c} group: "x/{a,b}" -> "x/a", "x/b".
func expandBraces(s string) []string {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return []string{s}
	}
	end := strings.IndexByte(s[open:], '}')
	if end < 0 {
		return []string{s}
	}
	end += open
	var out []string
	for _, alt := range strings.Split(s[open+1:end], ",") {
		out = append(out, expandBraces(s[:open]+alt+s[end+1:])...)
	}
	return out
}

// TestLayersAreATotalOrder checks the layer list of docs/architecture.md
// against the import graph: every package of the module is on exactly one
// line, every pattern names a package, and every import goes to a line
// further down (the allowed edges between cores excepted).
func TestLayersAreATotalOrder(t *testing.T) {
	t.Parallel()
	tr := lblab()
	if len(tr.errs) > 0 {
		t.Fatalf("the module did not load (see TestTreeLoadsAndRulesMatch): %s", tr.errs[0])
	}
	text, err := os.ReadFile(layersDoc)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := readLayers(string(text))
	if err != nil {
		t.Fatalf("%s: %v", layersDoc, err)
	}
	for _, e := range layerErrors(tr, layers, sidewaysAllowed()) {
		t.Errorf("%s: %s", layersDoc, e)
	}
}

// sidewaysAllowed is the edges the import rules allow within one line (the
// cores' two), as "from -> to" of resolved import paths.
func sidewaysAllowed() map[[2]string]bool {
	allowed := map[[2]string]bool{}
	for _, r := range importRules {
		for _, e := range r.allow {
			allowed[[2]string{e.from, e.to}] = true
		}
	}
	return allowed
}

func layerErrors(tr *tree, layers []layer, allowed map[[2]string]bool) []string {
	var errs []string
	level := map[string]int{} // package -> index of its line
	for i, l := range layers {
		for _, p := range l.patterns {
			pkgs := tr.matchLocal([]string{p})
			if len(pkgs) == 0 {
				errs = append(errs, fmt.Sprintf("line %d: %s names no package of the module", l.line, strings.TrimPrefix(p, "./")))
			}
			for _, pkg := range pkgs {
				if j, ok := level[pkg]; ok && j != i {
					errs = append(errs, fmt.Sprintf("%s is on two lines (%d and %d)", tr.short(pkg), layers[j].line, l.line))
					continue
				}
				level[pkg] = i
			}
		}
	}
	for _, pkg := range tr.local {
		from, ok := level[pkg]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s is on no line of the layer list: add it where its imports put it", tr.short(pkg)))
			continue
		}
		gp := tr.graph[pkg]
		if gp == nil {
			continue
		}
		for _, d := range gp.Imports {
			to, ok := level[d.PkgPath]
			if !ok || to > from {
				continue
			}
			if to == from && allowed[[2]string{"./" + tr.short(pkg), "./" + tr.short(d.PkgPath)}] {
				continue
			}
			dir := "up"
			if to == from {
				dir = "sideways"
			}
			errs = append(errs, fmt.Sprintf("%s (line %d) imports %s (line %d): an import %s the layers",
				tr.short(pkg), layers[from].line, tr.short(d.PkgPath), layers[to].line, dir))
		}
	}
	return errs
}

// The checker itself: a package missing from the list, a pattern that
// names nothing, and imports that go up or sideways are each reported.
func TestLayerCheckerReportsEachFault(t *testing.T) {
	t.Parallel()
	tr := lblab()
	if len(tr.errs) > 0 {
		t.Fatalf("the module did not load: %s", tr.errs[0])
	}
	doc := "x\n## Layers\n\ntext\n\n```\n" +
		"internal/core/{balance,load}   two cores on one line: balance -> load is allowed\n" +
		"internal/nothing/here          names nothing\n" +
		"internal/clock, internal/rng   leaves\n" +
		"internal/stats                 below clock, which it imports: up\n" +
		"```\n"
	layers, err := readLayers(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 4 || len(layers[0].patterns) != 2 || layers[0].patterns[1] != "./internal/core/load" {
		t.Fatalf("parsed %+v", layers)
	}
	got := strings.Join(layerErrors(tr, layers, sidewaysAllowed()), "\n")
	for _, want := range []string{
		"line 8: internal/nothing/here names no package",
		"internal/sim is on no line",
		"internal/stats (line 10) imports internal/clock (line 9): an import up the layers",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the checker did not report %q; it said:\n%s", want, got)
		}
	}
	if strings.Contains(got, "internal/core/balance (line 7) imports internal/core/load") {
		t.Errorf("the allowed edge balance -> load was reported:\n%s", got)
	}
	sideways := strings.Replace(doc, "internal/clock, internal/rng   leaves\n", "", 1)
	sideways = strings.Replace(sideways, "internal/stats ", "internal/stats, internal/clock ", 1)
	layers, _ = readLayers(sideways)
	if got := strings.Join(layerErrors(tr, layers, sidewaysAllowed()), "\n"); !strings.Contains(got, "internal/stats (line 9) imports internal/clock (line 9): an import sideways") {
		t.Errorf("a sideways import was not reported:\n%s", got)
	}
}
