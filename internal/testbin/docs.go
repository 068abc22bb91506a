package testbin

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// endpointRe finds `METHOD /path` mentions in markdown; a path may list
// alternatives in braces (`POST /admin/{slow,restore}`), while a brace
// without a comma is a placeholder (`DELETE /admin/backends/{name}`).
var endpointRe = regexp.MustCompile("`(GET|PUT|POST|DELETE) (/[^`\\s]*)`")

// DocEndpoints returns the endpoints ("POST /admin/cancel") that the page
// docs/NAME has a section for: a heading that names them.
func DocEndpoints(t testing.TB, name string) map[string]bool {
	t.Helper()
	var headings []string
	for _, line := range strings.Split(readDoc(t, name), "\n") {
		if strings.HasPrefix(line, "#") {
			headings = append(headings, line)
		}
	}
	return endpoints(strings.Join(headings, "\n"))
}

// DocIndexEndpoints returns the endpoints that docs/admin-api.md's index
// table lists for process ("backend", "lb", "loadgen").
func DocIndexEndpoints(t testing.TB, process string) map[string]bool {
	t.Helper()
	for _, line := range strings.Split(readDoc(t, "admin-api.md"), "\n") {
		if strings.HasPrefix(line, "| "+process+" |") {
			return endpoints(line)
		}
	}
	t.Fatalf("docs/admin-api.md has no row for %s", process)
	return nil
}

// CheckAdminDocs fails the test for each of process's routes ("POST
// /admin/cancel") that docs/PAGE has no section for or docs/admin-api.md's
// index does not list.
func CheckAdminDocs(t testing.TB, process, page string, routes []string) {
	t.Helper()
	sections, index := DocEndpoints(t, page), DocIndexEndpoints(t, process)
	for _, r := range routes {
		if !sections[r] {
			t.Errorf("docs/%s has no section for %s", page, r)
		}
		if !index[r] {
			t.Errorf("docs/admin-api.md's index does not list the %s's %s", process, r)
		}
	}
}

func readDoc(t testing.TB, name string) string {
	_, here, _, _ := runtime.Caller(0)
	text, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

func endpoints(text string) map[string]bool {
	out := map[string]bool{}
	for _, m := range endpointRe.FindAllStringSubmatch(text, -1) {
		for _, p := range expandBraces(m[2]) {
			out[m[1]+" "+p] = true
		}
	}
	return out
}

func expandBraces(p string) []string {
	open, end := strings.IndexByte(p, '{'), strings.IndexByte(p, '}')
	if open < 0 || end < open || !strings.Contains(p[open:end], ",") {
		return []string{p}
	}
	var out []string
	for _, alt := range strings.Split(p[open+1:end], ",") {
		out = append(out, p[:open]+alt+p[end+1:])
	}
	return out
}
