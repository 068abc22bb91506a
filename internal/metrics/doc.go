package metrics

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Doc is one metric row of docs/metrics.md.
type Doc struct {
	Section string   // the heading it is under: backend, lb, loadgen, every process
	Name    string   // lblab_...
	Type    string   // counter, gauge or histogram
	Labels  []string // in the doc's order; none for an empty cell
}

// ReadDoc parses the metric tables of docs/metrics.md at path.
func ReadDoc(path string) ([]Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	docs, err := ParseDoc(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return docs, nil
}

// DocumentedNames returns the metric names of docs/metrics.md at path by
// section ("backend", "lb", "loadgen", "every process"), in the doc's order.
// Dashboard tests use it to check that they query only documented names.
func DocumentedNames(path string) (map[string][]string, error) {
	docs, err := ReadDoc(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, d := range docs {
		out[d.Section] = append(out[d.Section], d.Name)
	}
	return out, nil
}

// ParseDoc reads the doc's table rows whose first cell is a backquoted
// lblab_* name; the section is the last "## " heading without its
// parenthesis ("## lb (one per balancer)" is lb).
func ParseDoc(r io.Reader) ([]Doc, error) {
	var (
		docs    []Doc
		section string
		seen    = map[string]bool{}
		sc      = bufio.NewScanner(r)
	)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if h, ok := strings.CutPrefix(line, "## "); ok {
			h, _, _ = strings.Cut(h, "(")
			section = strings.TrimSpace(h)
			continue
		}
		d, ok, err := parseRow(line)
		switch {
		case err != nil:
			return nil, fmt.Errorf("line %d: %w", n, err)
		case !ok:
			continue
		case section == "":
			return nil, fmt.Errorf("line %d: %s is under no \"## \" heading", n, d.Name)
		case seen[d.Name]:
			return nil, fmt.Errorf("line %d: %s is documented twice", n, d.Name)
		}
		seen[d.Name], d.Section = true, section
		docs = append(docs, d)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("no metric rows (| `lblab_...` | type | labels | meaning |)")
	}
	return docs, nil
}

// parseRow reads "| `name` | type | labels | meaning |"; ok is false for
// any other line.
func parseRow(line string) (Doc, bool, error) {
	if !strings.HasPrefix(line, "|") {
		return Doc{}, false, nil
	}
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	name, ok := strings.CutPrefix(cells[0], "`lblab_")
	if !ok || !strings.HasSuffix(name, "`") {
		return Doc{}, false, nil
	}
	d := Doc{Name: "lblab_" + strings.TrimSuffix(name, "`")}
	if len(cells) < 4 {
		return d, false, fmt.Errorf("%s: want 4 cells (name, type, labels, meaning), got %d", d.Name, len(cells))
	}
	d.Type = cells[1]
	if !slices.Contains([]string{"counter", "gauge", "histogram"}, d.Type) {
		return d, false, fmt.Errorf("%s: type %q is not counter, gauge or histogram", d.Name, d.Type)
	}
	for l := range strings.SplitSeq(cells[2], ",") {
		if l = strings.TrimSpace(l); l != "" {
			d.Labels = append(d.Labels, l)
		}
	}
	return d, true, nil
}
