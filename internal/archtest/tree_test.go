package archtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// maxTracked is the largest file the tree may hold: anything bigger is
// almost always a build output or a stray profile.
const maxTracked = 2 << 20

// TestNoBuildOutputsCommitted fails on a committed executable (ELF) or a
// file over 2 MB: `go build ./cmd/lab` at the root once committed a 26 MB
// binary, and the Docker build context carried it.
func TestNoBuildOutputsCommitted(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Skipf("SKIPPED: not a git checkout (%v): cannot list the tracked files", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		path := filepath.Join(root, name)
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the work tree, or a link
		}
		if fi.Size() > maxTracked {
			t.Errorf("%s is %d bytes: build outputs and large files stay out of the tree", name, fi.Size())
		}
		head := make([]byte, 4)
		if f, err := os.Open(path); err == nil {
			f.Read(head)
			f.Close()
		}
		if bytes.Equal(head, []byte("\x7fELF")) {
			t.Errorf("%s is an executable: build outputs stay out of the tree (.gitignore)", name)
		}
	}
}
