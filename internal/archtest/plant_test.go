package archtest

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// planted is testdata/plant, loaded once.
var planted = sync.OnceValue(func() *tree { return loadTree("testdata/plant", scopeOf(codeRules)) })

// TestPlanted runs the checker, with the very rule tables of arch_test.go,
// on testdata/plant: a small module whose internal/core/bad breaks each
// clock-free rule once a line (a direct time.Now() call, time.Now taken as a
// value, t.Sleep through an aliased import, Since and Timer through a dot
// import, a method of a timer, a go statement, math/rand, sync), whose
// settings package reads the wall clock and the OS on the cores' behalf,
// and whose imports break the import directions directly and through a
// chain (the client runtime reaching the lab-file parser through its
// report). Every break must be reported at its line, and nothing else: the
// allowed balance -> load edge and t.Millisecond are not breaks. This is what makes TestClockFreeCode fail on a time.Now
// planted in a real core package.
func TestPlanted(t *testing.T) {
	t.Parallel()
	tr := planted()
	for _, e := range tr.errs {
		t.Fatal(e)
	}
	code, used := tr.checkCode(codeRules, wallExemptions)
	if len(used) != 0 {
		t.Errorf("exemptions used in the planted module, which has no internal/clock: %v", used)
	}
	want := []string{
		"internal/core/bad/alias.go:6:14: wall clock: t.Sleep(...)",
		"internal/core/bad/bad.go:18:7: wall clock: time.Now (as a value)",
		"internal/core/bad/bad.go:20:9: wall clock: time.Now(...)",
		"internal/core/bad/dot.go:6:30: wall clock: Timer (a type)",
		"internal/core/bad/dot.go:9:41: wall clock: d.timer.Stop(...)",
		"internal/core/bad/dot.go:11:13: wall clock: Since (as a value)",
		"internal/labfile/labfile.go:14:50: wall clock: time.Now(...)",
		`internal/core/bad/bad.go:6:2: global randomness: import "math/rand"`,
		"internal/core/bad/bad.go:25:2: goroutine: go (func() literal)()",
		`internal/core/bad/bad.go:7:2: concurrency or the OS: import "sync"`,
		`internal/labfile/labfile.go:7:2: concurrency or the OS: import "os"`,
	}
	same(t, "code rules", code, want)

	want = []string{
		"import direction: internal/core/bad -> internal/labfile",
		"import direction: internal/core/bad -> internal/sim",
		"import direction: internal/shell/lb -> internal/shell/wire -> internal/shell/backend",
		"import direction: internal/report -> internal/labfile",
		"import direction: internal/client -> internal/report -> internal/labfile",
		"import direction: internal/labfile -> internal/proxies",
	}
	same(t, "import rules", tr.checkImports(importRules), want)
}

// same fails unless found, printed, is exactly want (in any order).
func same(t *testing.T, what string, found []violation, want []string) {
	t.Helper()
	var got []string
	for _, v := range found {
		got = append(got, v.String())
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s: not reported: %s", what, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s: reported but not planted: %s", what, g)
		}
	}
}

// TestRulesThatMatchNothingFail checks the rule tables against the planted
// module, which lacks most of lblab's packages: each missing directory, a
// directory without Go files, an external package the build does not reach
// and an object of a package nothing imports must each be an error, as a
// renamed package in lblab would be.
func TestRulesThatMatchNothingFail(t *testing.T) {
	t.Parallel()
	tr := planted()
	errs := strings.Join(ruleErrors(tr, codeRules, wallExemptions, importRules), "\n")
	for _, want := range []string{
		"./internal/stats/...: no such directory",
		"./internal/core/server: no such directory",
		"./internal/clock: no such directory", // the exemptions' package
		"./internal/policy/... names no package of example.com/plant",
		"github.com/valyala/fasthttp/... names no package the build of example.com/plant reaches",
		"./internal/clock.Wall: package example.com/plant/internal/clock is not imported",
	} {
		if !strings.Contains(errs, want) {
			t.Errorf("no error %q; got:\n%s", want, errs)
		}
	}
	for _, found := range []string{"./internal/core/...", "./internal/sim/...", "./internal/shell/lb", "math/rand/...", "sync/...", "time.Now"} {
		if strings.Contains(errs, ": "+found+": ") || strings.Contains(errs, ": "+found+" names") {
			t.Errorf("error about %s, which the planted module has:\n%s", found, errs)
		}
	}

	// A misspelt standard package or object is an error too.
	if errs := tr.checkPatterns("test", []string{"math/rand/...", "sync/atomc"}); len(errs) != 1 || !strings.Contains(errs[0], "sync/atomc names no package of the standard library") {
		t.Errorf("checking math/rand/... and sync/atomc: %q", errs)
	}
	if errs := tr.checkObjects([]codeRule{{name: "test", objects: []string{"time.Now", "time.Nw"}}}); len(errs) != 1 || !strings.Contains(errs[0], "package time has no Nw") {
		t.Errorf("checking time.Now and time.Nw: %q", errs)
	}
}

// TestLoadErrorsFail checks that a package that does not type-check, and a
// directory that is not there, are load errors, not packages skipped.
func TestLoadErrorsFail(t *testing.T) {
	t.Parallel()
	tr := loadTree("testdata/broken", []string{"./..."})
	if !strings.Contains(strings.Join(tr.errs, "\n"), "does not type-check") {
		t.Errorf("testdata/broken loaded without a type error: %v", tr.errs)
	}
	if tr := loadTree("testdata/renamed", []string{"./..."}); len(tr.errs) == 0 {
		t.Error("a missing module directory loaded without an error")
	}
}
