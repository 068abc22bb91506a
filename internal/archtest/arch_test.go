// Package archtest enforces the import directions of DESIGN.md and keeps
// the wall clock and global randomness out of the policy core.
package archtest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/lblab/lblab/"

// deps returns the module-internal packages pkg depends on.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var list []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		list = append(list, sc.Text())
	}
	return list
}

// forbidden lists, per package pattern, imports it must never reach.
var forbidden = map[string][]string{
	"internal/clock":    {module + "internal/", "github.com/valyala/fasthttp"},
	"internal/rng":      {module + "internal/"},
	"internal/stats":    {module + "internal/core", module + "internal/sim", module + "internal/policy"},
	"internal/core/...": {module + "internal/sim", module + "internal/policy", module + "internal/shell", module + "internal/labfile", "net", "github.com/valyala/fasthttp", "github.com/prometheus/client_golang/prometheus"},
	"internal/policy":   {module + "internal/sim", module + "internal/shell", module + "internal/labfile", "net", "github.com/valyala/fasthttp"},
	"internal/workload": {module + "internal/sim", module + "internal/shell", module + "internal/core/server", "net"},
	"internal/labfile":  {module + "internal/sim", module + "internal/shell", "net"},
	"internal/assemble": {module + "internal/sim", module + "internal/shell", "net", "github.com/valyala/fasthttp"},
	"internal/sim":      {module + "internal/shell", "net", "github.com/valyala/fasthttp"},
}

func TestImportDirections(t *testing.T) {
	for pattern, bad := range forbidden {
		pkgs := []string{pattern}
		if strings.HasSuffix(pattern, "/...") {
			pkgs = listPackages(t, strings.TrimSuffix(pattern, "/..."))
		}
		for _, pkg := range pkgs {
			for _, d := range deps(t, pkg) {
				if d == module+pkg {
					continue
				}
				for _, b := range bad {
					if d == b || strings.HasPrefix(d, strings.TrimSuffix(b, "/")+"/") {
						t.Errorf("%s must not depend on %s", pkg, d)
					}
				}
			}
		}
	}
}

func listPackages(t *testing.T, dir string) []string {
	out, err := exec.Command("go", "list", module+dir+"/...").Output()
	if err != nil {
		t.Fatalf("go list %s/...: %v", dir, err)
	}
	var pkgs []string
	for _, p := range strings.Fields(string(out)) {
		pkgs = append(pkgs, strings.TrimPrefix(p, module))
	}
	return pkgs
}

// The clock-injected packages: no wall clock, no sleeping, no timers, no
// global math/rand (a seeded generator from internal/rng instead).
var clockFree = []string{"internal/core", "internal/stats", "internal/workload", "internal/sim", "internal/policy", "internal/assemble"}

var wallClock = regexp.MustCompile(`time\.(Now|Sleep|After|AfterFunc|Tick|NewTimer|NewTicker|Since|Until)\(|"math/rand"|"math/rand/v2"`)

func TestNoWallClockInCore(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	for _, dir := range clockFree {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(data), "\n") {
				if wallClock.MatchString(line) {
					t.Errorf("%s:%d uses the wall clock or global randomness: %s", path, i+1, strings.TrimSpace(line))
				}
			}
			return nil
		})
	}
}
