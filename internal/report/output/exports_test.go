package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckCSV counts a finished CSV's rows, and names the file and the row
// when the file ends in the middle of one (a loadgen killed as it wrote).
func TestCheckCSV(t *testing.T) {
	dir := t.TempDir()
	head := "run,seq,client,key,intended_ms,sent_ms,latency_ms,attempts,outcome,server\n"
	row := "p2c,1,2,3,4,5,6,1,succeeded,s1\n"
	for name, c := range map[string]struct {
		text string
		rows int
		err  string
	}{
		"whole.csv":     {head + row + row, 2, ""},
		"empty-run.csv": {head, 0, ""},
		"cut-field.csv": {head + row + "p2c,2,2,3,4,5,6,1,succee", 1, "cut.csv: row 2 (line 3) is cut or malformed"},
		"cut-last.csv":  {head + row + row + "p2c,3,2,3,4,5,6,1,succeeded,s", 2, "row 3 (line 4) is cut: its writer stopped in the middle of it; the 2 rows before it are whole"},
		"cut-head.csv":  {"run,seq,cli", 0, "its header line is cut"},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := CheckCSV(path)
		switch {
		case c.err == "" && err != nil, c.err != "" && (err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(c.err, "cut.csv: "))):
			t.Errorf("%s: %v, want an error saying %q", name, err, c.err)
		case c.err != "" && !strings.HasPrefix(err.Error(), path+": "):
			t.Errorf("%s: %v does not name the file", name, err)
		case rows != c.rows:
			t.Errorf("%s: %d whole rows, want %d", name, rows, c.rows)
		}
	}
}
