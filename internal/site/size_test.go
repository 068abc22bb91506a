package site

import (
	"os"
	"path/filepath"
	"testing"
)

// moduleGoal is the most bytes the page's module may weigh (issue 22: at
// most 10 MB; docs/BENCHMARKS.md gives what it weighs and gzip makes of it).
const moduleGoal = 10_000_000

// The module make site builds stays within its goal. What made it heavy
// before, a third of it, was net/http and what comes with it;
// internal/archtest's TestPageModuleLinksNoProcess names what it must not
// link, this its weight whatever brings it.
func TestModuleWithinItsGoal(t *testing.T) {
	fi, err := os.Stat(filepath.Join(siteDir(t), WasmFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > moduleGoal {
		t.Errorf("%s is %.2f MB, over its goal of %.0f MB", WasmFile, float64(fi.Size())/1e6, float64(moduleGoal)/1e6)
	}
	t.Logf("%s: %.2f MB", WasmFile, float64(fi.Size())/1e6)
}
