package deploytest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/testbin"
)

// rootDir is the repository root; binDir holds the binaries, built at most
// once for the whole package.
var rootDir, binDir string

func TestMain(m *testing.M) {
	var err error
	if rootDir, err = findRoot(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if binDir, err = os.MkdirTemp("", "deploytest-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(binDir)
	os.Exit(code)
}

// findRoot walks up from the working directory to go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test's directory")
		}
		dir = parent
	}
}

// repoFile is a repository file's absolute path.
func repoFile(parts ...string) string { return filepath.Join(append([]string{rootDir}, parts...)...) }

var buildOnce = sync.OnceValues(func() ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", binDir+string(filepath.Separator), "./cmd/...")
	cmd.Dir = rootDir
	return cmd.CombinedOutput()
})

// binaries builds ./cmd/... (once) and returns the directory holding them.
func binaries(t *testing.T) string {
	t.Helper()
	if out, err := buildOnce(); err != nil {
		t.Fatalf("go build ./cmd/...: %v\n%s", err, out)
	}
	return binDir
}

// tool finds prometheus or promtool; without it the test is skipped
// locally and fails under CI (where .ci/run installs it).
func tool(t *testing.T, name string) string {
	t.Helper()
	return testbin.Tool(t, name, "apt-get install -y prometheus")
}

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
