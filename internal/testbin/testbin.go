// Package testbin builds the project's commands for the tests that run them
// as real processes (the command lines, the live lab, the compose checks).
package testbin

import (
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
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
