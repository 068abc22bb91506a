package testbin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Tool on a missing program: a loud skip, recorded in $LBLAB_SKIPS,
// locally; a failure under CI. (The test runs itself as a child to see
// both outcomes.)
func TestToolMissing(t *testing.T) {
	if os.Getenv("LBLAB_TOOL_CHILD") != "" {
		Tool(t, "lblab-no-such-tool", "apt-get install -y lblab-no-such-tool", "/no/such/path")
		t.Log("not reached")
		return
	}
	skips := filepath.Join(t.TempDir(), "skips")
	run := func(ci string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestToolMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "LBLAB_TOOL_CHILD=1", "CI="+ci, "LBLAB_SKIPS="+skips)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	recorded, _ := os.ReadFile(skips)
	if err != nil || !strings.Contains(out, "--- SKIP") ||
		!strings.Contains(out, "SKIPPED: lblab-no-such-tool is not installed (not on PATH nor at /no/such/path): apt-get install -y lblab-no-such-tool") ||
		!strings.Contains(string(recorded), "./internal/testbin TestToolMissing: lblab-no-such-tool is not installed") {
		t.Errorf("locally: %v\n%s\nrecorded: %q", err, out, recorded)
	}
	out, err = run("true")
	if err == nil || !strings.Contains(out, "--- FAIL") || !strings.Contains(out, "under CI every tool must be there") ||
		strings.Contains(out, "not reached") {
		t.Errorf("under CI: %v\n%s", err, out)
	}
}

func TestToolFound(t *testing.T) {
	if p := Tool(t, "sh", "apt-get install -y dash"); p == "" {
		t.Error("sh is on PATH")
	}
}
