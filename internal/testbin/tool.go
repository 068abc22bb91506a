package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tool returns the path of the external program name, looked up on PATH
// and then at the paths in also. Without it the test cannot run: locally
// it is skipped, saying what is missing and how to install it; under CI
// ($CI set, where .ci/run installs every tool) it fails instead.
func Tool(t testing.TB, name, install string, also ...string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, p := range also {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	where := "not on PATH"
	if len(also) > 0 {
		where += " nor at " + strings.Join(also, ", ")
	}
	why := fmt.Sprintf("%s is not installed (%s): %s", name, where, install)
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (under CI every tool must be there)", why)
	}
	Skip(t, why)
	return ""
}

// Skip skips the test with a loud reason. When $LBLAB_SKIPS names a file it
// also appends "./internal/lab TestName: reason" there, so that make test can list
// every test that did not run after the (otherwise quiet) go test output.
func Skip(t testing.TB, why string) {
	t.Helper()
	if path := os.Getenv("LBLAB_SKIPS"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s: %s\n", packageDir(), t.Name(), why)
			f.Close()
		}
	}
	t.Skipf("SKIPPED: %s", why)
}

// packageDir is the test's package directory relative to the module root
// (go test runs a package's tests in its directory).
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "?"
	}
	for dir := wd; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if rel, err := filepath.Rel(dir, wd); err == nil {
				return "./" + filepath.ToSlash(rel)
			}
		}
	}
	return wd
}
