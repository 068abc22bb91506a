package archtest

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/core/balance"
)

// Every algorithm of the registry (balance.Names, the one list the lab file
// and policy read) is described for `lab algorithms` and builds.
func TestAlgorithmsAreDescribed(t *testing.T) {
	for _, n := range balance.Names {
		if _, err := balance.New(balance.Config{Name: n}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if balance.Describe(n) == "" {
			t.Errorf("%s has no description", n)
		}
	}
}

// The maintainers' pages cover every algorithm and every core: each name of
// balance.Names is in docs/model.md's algorithm table, and each package
// under internal/core is named (as internal/core/NAME) in docs/model.md and
// docs/architecture.md. A new algorithm or core without its description
// fails here.
func TestDocsCoverAlgorithmsAndCores(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	model, arch := read("../../docs/model.md"), read("../../docs/architecture.md")
	for _, n := range balance.Names {
		if !strings.Contains(model, "| `"+n+"` |") {
			t.Errorf("docs/model.md has no row for the algorithm %s (\"| `%s` | ...\" in the algorithm table)", n, n)
		}
	}
	dirs, err := os.ReadDir("../core")
	if err != nil {
		t.Fatal(err)
	}
	cores := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		cores++
		name := "internal/core/" + d.Name()
		for page, text := range map[string]string{"docs/model.md": model, "docs/architecture.md": arch} {
			if !regexp.MustCompile(regexp.QuoteMeta(name) + `\b`).MatchString(text) {
				t.Errorf("%s does not name %s", page, name)
			}
		}
	}
	if cores < 10 {
		t.Fatalf("found %d core packages under internal/core: wrong directory?", cores)
	}
}
