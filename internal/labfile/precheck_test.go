package labfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDeepNestingRefusedBeforeParsing: YAML nested past MaxDepth is refused
// with its position, before the parser (whose memory grows with depth x
// size) sees it.
func TestDeepNestingRefusedBeforeParsing(t *testing.T) {
	cases := map[string]struct {
		src       string
		line, col int
	}{
		"flow sequences": {"clients:\n  rate: " + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "\n", 2, 9 + 62},
		"flow mappings":  {"x: " + strings.Repeat("{a: ", 100) + "1" + strings.Repeat("}", 100) + "\n", 1, 4 + 4*63},
		"block entries":  {strings.Repeat("- ", 100) + "x\n", 1, 129},
		"indentation": {func() string {
			var b strings.Builder
			for i := 0; i < 80; i++ {
				b.WriteString(strings.Repeat(" ", i) + "k:\n")
			}
			return b.String()
		}(), 65, 65},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Parse("lab.yaml", []byte(c.src))
			runtime.ReadMemStats(&after)
			e, ok := err.(*Error)
			if !ok || !strings.Contains(e.Msg, "nests more than 64 levels") || e.Line != c.line || e.Col != c.col {
				t.Fatalf("got %v (%#v), want line %d col %d", err, err, c.line, c.col)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
				t.Fatalf("refusing it took %d MB", grew>>20)
			}
		})
	}
}

// TestNestingInTextIsNotCounted: brackets in quoted text, comments and
// block scalars are text, not nesting.
func TestNestingInTextIsNotCounted(t *testing.T) {
	deep := strings.Repeat("[", 100)
	src := "name: \"" + deep + "\"\n" +
		"description: '" + deep + "'\n" +
		"narration: |\n  " + deep + "\n  " + strings.Repeat("{", 100) + "\n" +
		"# " + deep + "\n" +
		"clients: {rate: 10, hedge: \"p95\"} # " + deep + "\n" +
		"servers:\n  - count: 2\n"
	if _, err := Parse("lab.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	ok := "servers:\n" + strings.Repeat("  - {count: 1, workers: 1, work: {dist: mixture, mix: [{p: 1, value: 1ms}]}}\n", 1)
	if _, err := Parse("lab.yaml", []byte(ok)); err != nil {
		t.Fatal(err)
	}
}

// TestFileSizeCap: a file over 1 MiB is refused unread past the cap.
func TestFileSizeCap(t *testing.T) {
	big := "# " + strings.Repeat("x", MaxFileSize) + "\nclients: {rate: 10}\n"
	if _, err := Parse("lab.yaml", []byte(big)); err == nil || !strings.Contains(err.Error(), "lab.yaml: the file is over 1048576 bytes (1 MiB)") {
		t.Fatalf("Parse: %v", err)
	}
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "over 1048576 bytes") {
		t.Fatalf("Load: %v", err)
	}
}
