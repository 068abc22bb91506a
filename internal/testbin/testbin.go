// Package testbin builds the project's commands for the tests that run them
// as real processes (the command lines, the live lab, the compose checks).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
)

// Build compiles the command package pkg (such as
// "github.com/lblab/lblab/cmd/lab") into dir and returns the binary's path.
func Build(dir, pkg string) (string, error) {
	bin := filepath.Join(dir, path.Base(pkg))
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// Run builds pkg into a temporary directory, points *bin at the binary, runs
// the package's tests and removes the directory; it returns m.Run's code.
// A TestMain is then one line: os.Exit(testbin.Run(m, pkg, &bin)).
func Run(m *testing.M, pkg string, bin *string) int {
	dir, err := os.MkdirTemp("", "lblab-testbin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *bin, err = Build(dir, pkg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
