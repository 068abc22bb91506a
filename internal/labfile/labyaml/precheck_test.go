package labyaml

import (
	"fmt"
	"github.com/goccy/go-yaml/ast"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
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
			e, ok := err.(*labfile.Error)
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

// worstShapes are 1 MiB files of the shapes whose parse time grows with the
// square of their size in goccy/go-yaml (measured before the token caps:
// 512k empty entries ran over 110 s; 256 KB of keys without values in one
// mapping allocated 3 GB), and of the shapes that are costly per byte (a
// flow list of 512k numbers: 24 s and 451 MB through the decoder).
func worstShapes() map[string]string {
	fill := func(head, unit, tail string) string {
		return head + strings.Repeat(unit, (MaxFileSize-len(head)-len(tail))/len(unit)) + tail
	}
	keys := func(value string) string {
		var b strings.Builder
		b.WriteString("x-m:\n")
		for i := 0; ; i++ {
			k := fmt.Sprintf("  k%d:%s\n", i, value)
			if b.Len()+len(k) > MaxFileSize {
				return b.String()
			}
			b.WriteString(k)
		}
	}
	return map[string]string{
		"empty entries":        fill("name: x\nx-l:\n", "-\n", ""),
		"empty nested lists":   fill("x-l:\n", "- -\n", ""),
		"entries of null keys": fill("x-l:\n", "- a:\n", ""),
		"keys without values":  keys(""),
		"keys with values":     keys(" 1"),
		"flow list":            fill("servers: [", "1,", "1]"),
		"flow list of lists":   fill("x-l: [", "[],", "1]"),
		"flow list of nulls":   fill("x-l: [", "a:,", "1]"),
		"block list":           fill("servers:\n", "- 1\n", ""),
		"comments":             fill("name: x\n", "#\n", ""),
		"documents":            fill("", "---\n", ""),
		"aliases":              fill("x-a: &a 1\nx-l:\n", "- *a\n", ""),
	}
}

// TestWorstShapesRefusedBeforeParsing: every worst-case 1 MiB shape is
// refused by the token caps with its position, so the parser never sees
// it. The assertion is on the refusal (which happens before the parser
// runs), not on time; the memory band is wide (the scanner holds up to 1 MiB
// of tokens, about 250 MB for a flow list) and only catches a parse that
// ran anyway (gigabytes).
func TestWorstShapesRefusedBeforeParsing(t *testing.T) {
	for name, src := range worstShapes() {
		t.Run(name, func(t *testing.T) {
			if len(src) > MaxFileSize || len(src) < MaxFileSize-64 {
				t.Fatalf("the file has %d bytes, want just under 1 MiB", len(src))
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Parse("lab.yaml", []byte(src))
			runtime.ReadMemStats(&after)
			e, ok := err.(*labfile.Error)
			if !ok || e.Line == 0 || e.Col == 0 || !(strings.Contains(e.Msg, "more than 32768 YAML tokens") || strings.Contains(e.Msg, "mapping keys at this column")) {
				t.Fatalf("got %v, want the token cap at a position", err)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 600<<20 {
				t.Fatalf("refusing it took %d MB", grew>>20)
			}
		})
	}
}

// TestTokenCapPositions: the caps name the token that passes them.
func TestTokenCapPositions(t *testing.T) {
	src := "name: x\nx-l:\n" + strings.Repeat("-\n", MaxTokens)
	_, err := Parse("lab.yaml", []byte(src))
	// tokens: name, :, x, x-l, : and then one per entry; token MaxTokens+1 is entry MaxTokens-4.
	if e, ok := err.(*labfile.Error); !ok || e.Line != 2+MaxTokens-4 || e.Col != 1 || !strings.Contains(e.Msg, "more than 32768 YAML tokens") {
		t.Fatalf("got %v", err)
	}
	var b strings.Builder
	b.WriteString("x-m:\n  a:\n")
	for i := 0; i <= MaxColumnKeys; i++ {
		fmt.Fprintf(&b, "    k%d: 1\n", i)
	}
	_, err = Parse("lab.yaml", []byte(b.String()))
	if e, ok := err.(*labfile.Error); !ok || e.Line != 3+MaxColumnKeys || e.Col != 5 || !strings.Contains(e.Msg, "more than 4096 mapping keys at this column") {
		t.Fatalf("got %v", err)
	}
}

// TestUnderTheTokenCaps: files just under the caps, in the costly shapes,
// parse (or fail on the schema) rather than hit a cap, and cheaply: the
// parse is bounded by counting what it built (every entry decoded), and the
// memory band is wide (under the caps these take 20-100 MB).
func TestUnderTheTokenCaps(t *testing.T) {
	var keys strings.Builder
	for m := 0; m < 3; m++ { // one column full, the other two nearly
		fmt.Fprintf(&keys, "x-m%d:\n", m)
		for i := 0; i < MaxColumnKeys-m-1; i++ {
			fmt.Fprintf(&keys, "%sk%d:\n", strings.Repeat(" ", 2*m+2), i)
		}
	}
	var nullKeys strings.Builder // at three columns, each under MaxColumnKeys
	for i := 0; i < (MaxTokens-2)/3; i++ {
		fmt.Fprintf(&nullKeys, "-%sa:\n", strings.Repeat(" ", 1+i%3))
	}
	for name, c := range map[string]struct {
		src     string
		entries int // of the first list, -1 for none
	}{
		"empty entries":        {"x-l:\n" + strings.Repeat("-\n", MaxTokens-2), MaxTokens - 2},
		"entries of null keys": {"x-l:\n" + nullKeys.String(), (MaxTokens - 2) / 3},
		"keys without values":  {keys.String(), -1},
		"block list":           {"x-l:\n" + strings.Repeat("- 1\n", (MaxTokens-2)/2), (MaxTokens - 2) / 2},
	} {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			f, err := parseYAML("lab.yaml", []byte(c.src))
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if c.entries >= 0 {
				ps, _ := pairs(f.Docs[0].Body)
				seq, ok := ps[0].Value.(*ast.SequenceNode)
				if !ok || len(seq.Values) != c.entries {
					t.Fatalf("parsed %T, want a list of %d entries", f.Docs[0].Body, c.entries)
				}
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 400<<20 {
				t.Fatalf("parsing it took %d MB", grew>>20)
			}
			if _, err := Parse("lab.yaml", []byte(c.src)); err != nil && strings.Contains(err.Error(), "YAML tokens") {
				t.Fatal(err)
			}
		})
	}
}
