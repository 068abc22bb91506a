package labfile_test

import (
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// docTable is one table of docs/labfile.md: its rows by key, each row's
// cells by the table's column names.
type docTable map[string]map[string]string

// docTables reads the tables of docs/labfile.md, by the heading above
// them ("network", "Work distributions").
func docTables(t *testing.T) map[string]docTable {
	t.Helper()
	data, err := os.ReadFile("../../docs/labfile.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]docTable{}
	heading, columns := "", []string(nil)
	for _, line := range strings.Split(string(data), "\n") {
		if h, ok := strings.CutPrefix(line, "#"); ok {
			heading, columns = strings.TrimSpace(strings.TrimLeft(h, "#")), nil
			continue
		}
		if !strings.HasPrefix(line, "|") {
			columns = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		switch {
		case columns == nil:
			columns = cells
		case strings.HasPrefix(cells[0], "---"):
		default:
			row := map[string]string{}
			for i, c := range columns {
				if i < len(cells) {
					row[c] = cells[i]
				}
			}
			if out[heading] == nil {
				out[heading] = docTable{}
			}
			out[heading][strings.Trim(cells[0], "`")] = row
		}
	}
	return out
}

// docSection is the heading of docs/labfile.md that documents the keys of
// a leaf's section.
var docSection = map[string]string{"seed": "Top level", "duration": "Top level", "network": "network",
	"clients": "clients", "balancers": "balancers", "servers": "servers"}

// docSubtables are the sections whose keys a table of their own documents.
var docSubtables = map[string]string{"work": "Work distributions", "faults": "Fault shares"}

// Every setting the lab file declares (labfile.Leaves) has a row in
// docs/labfile.md, under its section, whose default column writes the
// default the lab takes and whose allowed column writes the range or the
// words its check allows (AllowedAt): a setting added to the schema, a
// default or a bound changed without the docs, fails here.
func TestSettingsDocumented(t *testing.T) {
	tables := docTables(t)
	lab, err := labyaml.Parse("defaults", []byte("servers: [{}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	allowed := lab.AllowedAt()
	for _, leaf := range labfile.Leaves("") {
		section, key, _ := strings.Cut(leaf.Path, ".")
		if key == "" {
			key = section
		}
		table := tables[docSection[section]]
		row, ok := table[key]
		if first, rest, sub := strings.Cut(key, "."); !ok && sub {
			if name, ok := docSubtables[first]; ok { // clients.work.mean: the work distributions' mean
				table, key = tables[name], rest
				row = table[key]
				if first, _, sub := strings.Cut(rest, "."); sub { // work.mix.p: the mix row names p
					row = table[first]
				}
			}
			if first == "profile" { // the load profiles' table writes the keys of each shape
				row = profileRow(tables, rest)
			}
		}
		if row == nil {
			t.Errorf("%s: docs/labfile.md has no row for %s under %q", leaf.Path, key, docSection[section])
			continue
		}
		if cell, ok := row["default"]; ok && key == strings.TrimPrefix(leaf.Path, section+".") && !strings.HasPrefix(leaf.Path, "servers.work.") {
			v, err := lab.Value(strings.Replace(leaf.Path, "servers.", "servers[0].", 1))
			if err != nil {
				t.Fatal(err)
			}
			if want := "`" + docValue(v) + "`"; !strings.Contains(cell, want) && !docDefaultAside(leaf.Path) {
				t.Errorf("%s: docs/labfile.md's default is %q; the lab's is %s", leaf.Path, cell, want)
			}
		}
		a, ok := allowed[leaf.Path]
		if !ok {
			continue
		}
		cell := row["allowed"]
		if a.Range != nil {
			if want := docRange(a.Range); !strings.Contains(cell, want) {
				t.Errorf("%s: docs/labfile.md allows %q; the check allows %s", leaf.Path, cell, want)
			}
		}
		for _, w := range a.Words {
			if !strings.Contains(cell, "`"+w+"`") && !strings.Contains(cell, "[algorithm]") {
				t.Errorf("%s: docs/labfile.md allows %q, not the word %s", leaf.Path, cell, w)
			}
		}
	}
}

// docDefaultAside: defaults the docs write in words (the name of a file)
// or that depend on another key.
func docDefaultAside(path string) bool {
	return path == "clients.work.dist"
}

// profileRow finds the row of the load profiles' table whose keys name
// key; the keys column is the one to check.
func profileRow(tables map[string]docTable, key string) map[string]string {
	if key == "shape" {
		return map[string]string{}
	}
	for _, row := range tables["Load profiles"] {
		if strings.Contains(row["keys"], "`"+key+"`") {
			return map[string]string{"allowed": row["keys"]}
		}
	}
	return nil
}

// docValue writes a value as docs/labfile.md does: durations without zero
// units (0 for none), numbers as the lab file writes them, "" for no text.
func docValue(v any) string {
	switch x := v.(type) {
	case time.Duration:
		if x == 0 {
			return "0"
		}
		return labfile.ShortDur(x)
	case float64:
		return labfile.Num(x)
	case int:
		return strconv.Itoa(x)
	case uint64:
		return strconv.FormatUint(x, 10)
	case fmt.Stringer: // Handshake
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		if rv.String() == "" {
			return `""`
		}
		return rv.String()
	}
	return ""
}

// docRange writes a range as docs/labfile.md does: "1 .. 3" for whole
// numbers, "(0, 10]" otherwise, 0 for a zero duration.
func docRange(r any) string {
	switch x := r.(type) {
	case labfile.Range[int]:
		return strconv.Itoa(x.Min) + " .. " + strconv.Itoa(x.Max)
	case labfile.Range[float64]:
		return interval(x.MinOpen, labfile.Num(x.Min), labfile.Num(x.Max))
	case labfile.Range[time.Duration]:
		return interval(x.MinOpen, docValue(x.Min), docValue(x.Max))
	}
	return "?"
}

func interval(open bool, lo, hi string) string {
	if open {
		return "(" + lo + ", " + hi + "]"
	}
	return "[" + lo + ", " + hi + "]"
}
