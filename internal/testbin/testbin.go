// Package testbin builds the project's commands for the tests that run them
// as real processes (the command lines, the live lab, the compose checks).
package testbin

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
	"time"
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

// Server is what the shell's servers (a backend, an lb) share for tests.
type Server interface {
	Start() error
	Shutdown(ctx context.Context) error
}

// Start starts s and shuts it down at cleanup, failing the test if either
// goes wrong (shutdown within 5 s).
func Start(t testing.TB, name string, s Server) {
	t.Helper()
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("shutdown %s: %v", name, err)
		}
	})
}
