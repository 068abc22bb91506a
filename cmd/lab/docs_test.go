package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/scenarios"
)

// updateDocs, set to 1, makes TestDocExamples rewrite the examples it
// checks instead of failing: LBLAB_UPDATE_DOCS=1 go test ./cmd/lab -run TestDocExamples
const updateDocs = "LBLAB_UPDATE_DOCS"

// docFiles are the pages whose examples and counts are checked.
func docFiles(t *testing.T) []string {
	files, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append(files, "../../README.md")
}

// example is a marked block: the comment line
//
//	<!-- output of: lab ARGS [| lines A-B] [| cut N [A-B]] -->
//
// right above a fenced block, whose text must be the output of lab ARGS
// (stdout), transformed: "lines A-B" keeps lines A to B (from 1), "cut N
// A-B" cuts lines A to B (of what is kept; default all) longer than N
// characters at N and ends them with "  ...".
var example = regexp.MustCompile("(?m)^<!-- output of: lab ([^|>]*?)((?: \\| [^|>]*?)*) -->\n(```[a-z]*\n)((?s:.*?))```")

// TestDocExamples re-runs every marked example of the README and docs/ and
// fails when the block no longer matches what lab prints; with
// LBLAB_UPDATE_DOCS=1 it rewrites the blocks instead.
func TestDocExamples(t *testing.T) {
	found := 0
	for _, path := range docFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		var failed bool
		updated := example.ReplaceAllStringFunc(text, func(block string) string {
			m := example.FindStringSubmatch(block)
			found++
			args, err := shellWords(m[1])
			if err != nil {
				t.Fatalf("%s: %q: %v", path, m[1], err)
			}
			out, errOut, code := lab(t, args...)
			if code != 0 {
				t.Errorf("%s: lab %s: exit %d: %s", path, m[1], code, errOut)
				return block
			}
			want, err := transform(out, m[2])
			if err != nil {
				t.Fatalf("%s: %q: %v", path, m[2], err)
			}
			if want == m[4] {
				return block
			}
			if os.Getenv(updateDocs) == "1" {
				return strings.Replace(block, m[3]+m[4], m[3]+want, 1)
			}
			failed = true
			t.Errorf("%s: the example of lab %s%s no longer matches its output (%s=1 rewrites it):\n--- the page\n%s--- lab prints\n%s",
				path, m[1], m[2], updateDocs, m[4], want)
			return block
		})
		if os.Getenv(updateDocs) == "1" && updated != text && !failed {
			if err := os.WriteFile(path, []byte(updated), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("rewrote the examples of %s", path)
		}
	}
	if found < 3 {
		t.Fatalf("found %d marked examples; want the README's two and docs/report.md's", found)
	}
}

// transform applies an example's " | op" list to lab's output.
func transform(out, ops string) (string, error) {
	lines := strings.SplitAfter(out, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	span := func(s string, n int) (int, int, error) {
		a, b, ok := strings.Cut(s, "-")
		from, err1 := strconv.Atoi(a)
		to, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || from < 1 || to < from || to > n {
			return 0, 0, fmt.Errorf("bad line span %q (of %d lines)", s, n)
		}
		return from - 1, to, nil
	}
	for _, op := range strings.Split(ops, " | ")[1:] {
		f := strings.Fields(op)
		switch {
		case len(f) == 2 && f[0] == "lines":
			a, b, err := span(f[1], len(lines))
			if err != nil {
				return "", err
			}
			lines = lines[a:b]
		case (len(f) == 2 || len(f) == 3) && f[0] == "cut":
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return "", err
			}
			a, b := 0, len(lines)
			if len(f) == 3 {
				if a, b, err = span(f[2], len(lines)); err != nil {
					return "", err
				}
			}
			for i := a; i < b; i++ {
				if l := []rune(strings.TrimSuffix(lines[i], "\n")); len(l) > n { // characters, not bytes: ±
					lines[i] = strings.TrimRight(string(l[:n]), " ") + "  ...\n"
				}
			}
		default:
			return "", fmt.Errorf("unknown operation %q (lines A-B, cut N [A-B])", op)
		}
	}
	return strings.Join(lines, ""), nil
}

var numberWords = map[string]int{"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
	"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}

// Every count of scenarios and algorithms written in the README and docs/
// is the registries' (lab scenarios, lab algorithms), every scenario has
// its row in docs/scenarios.md, and every algorithm is named in the
// README's list.
func TestDocCounts(t *testing.T) {
	want := map[string]int{"scenarios": len(scenarios.Names()), "drills": len(scenarios.Names()),
		"balancing algorithms": len(policy.Algorithms())}
	// "drills" also counts chaos actions applied ("543 drills"): only "the N drills" is the scenarios
	count := regexp.MustCompile(`(?i)(?:\b([0-9]+|[a-z]+)\s+(?:built-in\s+)?(scenarios|balancing algorithms)|\bthe\s+([0-9]+|[a-z]+)\s+(drills))\b`)
	checked := 0
	for _, path := range docFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range count.FindAllStringSubmatch(string(data), -1) {
			if m[1] == "" {
				m[1], m[2] = m[3], m[4]
			}
			n, err := strconv.Atoi(m[1])
			if err != nil {
				var ok bool
				if n, ok = numberWords[strings.ToLower(m[1])]; !ok {
					continue // "the scenarios", "built-in scenarios"
				}
			}
			checked++
			if w := want[strings.ToLower(m[2])]; n != w {
				t.Errorf("%s: %q: there are %d", path, m[0], w)
			}
		}
	}
	if checked < 3 {
		t.Errorf("checked %d counts; the README names at least three", checked)
	}
	page, err := os.ReadFile("../../docs/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(string(page), -1)
	var named []string
	for _, r := range rows {
		named = append(named, r[1])
	}
	if strings.Join(named, " ") != strings.Join(sortedCopy(scenarios.Names(), named), " ") || len(named) != len(scenarios.Names()) {
		t.Errorf("docs/scenarios.md has rows for %v; the scenarios are %v", named, scenarios.Names())
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, box, _ := strings.Cut(string(readme), "- **Algorithms** (`lab algorithms`):")
	box, _, _ = strings.Cut(box, "\n- ")
	for _, a := range policy.Algorithms() {
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(a) + `\b(?:[^-]|$)`).MatchString(box) {
			t.Errorf("the README's list of algorithms lacks %s", a)
		}
	}
}

// sortedCopy is names in the order of order where they appear in it (so a
// page may list the scenarios in its own order), each name once.
func sortedCopy(names, order []string) []string {
	var out []string
	for _, o := range order {
		for _, n := range names {
			if n == o {
				out = append(out, n)
			}
		}
	}
	return out
}
