package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// routeRule is where the dashboard's API declares its paths: the routes
// both clocks serve once, in the shared table's file, and each clock's own
// routes in its routes.go. Elsewhere in the two servers' packages no
// string literal is an API path ("/api/...", "/healthz"), so a route
// cannot be added, nor a shared one written again, beside the tables.
var routeRule = struct {
	shared  string   // the shared table's file: its paths are the shared routes'
	servers []string // the servers' packages
	table   string   // the one file of each that declares its own routes
	why     string
}{
	shared:  "internal/lab/dash/table.go",
	servers: []string{"internal/watch", "internal/lab/control"},
	table:   "routes.go",
	why: "the routes both clocks serve are declared once (dash.SharedRoutes) and each clock's own in its routes.go " +
		"(docs/architecture.md, how to add a route)",
}

// isAPIPath reports whether a string literal's value is a path of the
// dashboard's API.
func isAPIPath(v string) bool { return strings.HasPrefix(v, "/api/") || v == "/healthz" }

// TestRoutesAreDeclaredInTheTables checks routeRule on the module.
func TestRoutesAreDeclaredInTheTables(t *testing.T) {
	t.Parallel()
	root := "../.."
	shared, err := os.ReadFile(filepath.Join(root, routeRule.shared))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, dir := range routeRule.servers {
		names, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: no Go files (%v): the rule names a package that is gone", dir, err)
		}
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			data, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, n)
			files[filepath.ToSlash(rel)] = data
		}
	}
	found, tables := checkRouteLiterals(shared, files)
	for _, v := range found {
		t.Errorf("%s\n\t%s", v, routeRule.why)
	}
	if tables != len(routeRule.servers) {
		t.Errorf("%d of the servers' %s files declare a path: the rule checks nothing", tables, routeRule.table)
	}
}

// The rule reports a path written beside the tables and a shared path in a
// server's own table, at their lines, and nothing else: a path in the
// middle of a message, or a comment, is not a route.
func TestRouteRulePlanted(t *testing.T) {
	t.Parallel()
	shared := []byte("package dash\nconst (\n\tChaos = \"/api/chaos\"\n\tHealth = \"/healthz\"\n)\n")
	files := map[string][]byte{
		"internal/watch/routes.go": []byte("package watch\nvar own = []string{\"/api/playback\",\n\t\"/api/chaos\"}\n"),
		"internal/watch/watch.go": []byte("package watch\n// GET /api/snapshot is a comment\n" +
			"var msg = \"see GET /api/source\"\nvar p = \"/api/lab\"\n"),
		"internal/lab/control/routes.go": []byte("package control\nvar own = \"/api/state\"\n"),
		"internal/lab/control/chaos.go":  []byte("package control\nvar h = `/healthz`\n"),
	}
	found, tables := checkRouteLiterals(shared, files)
	want := []string{
		`internal/lab/control/chaos.go:2:9: the API path "/healthz" outside the route tables`,
		`internal/watch/routes.go:3:2: the shared route's path "/api/chaos" in a clock's own table`,
		`internal/watch/watch.go:4:9: the API path "/api/lab" outside the route tables`,
	}
	if !slices.Equal(found, want) || tables != 2 {
		t.Errorf("found %d tables and\n%s\nwant 2 and\n%s", tables, strings.Join(found, "\n"), strings.Join(want, "\n"))
	}
}

// checkRouteLiterals checks files (a server package's file, by its path
// in the module, to its source) against routeRule, the shared paths being
// the API paths in shared (the shared table's source). It returns the
// violations, sorted, and how many server tables declare a path.
func checkRouteLiterals(shared []byte, files map[string][]byte) (found []string, tables int) {
	sharedPaths := map[string]bool{}
	for _, lit := range apiLiterals(token.NewFileSet(), routeRule.shared, shared) {
		sharedPaths[lit.value] = true
	}
	if len(sharedPaths) == 0 {
		return []string{routeRule.shared + ": no API path: the rule checks nothing"}, 0
	}
	for name, src := range files {
		fset := token.NewFileSet()
		lits := apiLiterals(fset, name, src)
		inTable := filepath.Base(name) == routeRule.table
		if inTable && len(lits) > 0 {
			tables++
		}
		for _, lit := range lits {
			switch {
			case lit.err != "":
				found = append(found, lit.err)
			case !inTable:
				found = append(found, fmt.Sprintf("%s: the API path %q outside the route tables", lit.pos, lit.value))
			case sharedPaths[lit.value]:
				found = append(found, fmt.Sprintf("%s: the shared route's path %q in a clock's own table", lit.pos, lit.value))
			}
		}
	}
	slices.Sort(found)
	return found, tables
}

type apiLiteral struct {
	pos   token.Position
	value string
	err   string // the file did not parse
}

// apiLiterals are the string literals of src that are API paths.
func apiLiterals(fset *token.FileSet, name string, src []byte) []apiLiteral {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return []apiLiteral{{err: fmt.Sprintf("%s: %v", name, err)}}
	}
	var out []apiLiteral
	ast.Inspect(f, func(n ast.Node) bool {
		if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if v, err := strconv.Unquote(lit.Value); err == nil && isAPIPath(v) {
				out = append(out, apiLiteral{pos: fset.Position(lit.Pos()), value: v})
			}
		}
		return true
	})
	return out
}
