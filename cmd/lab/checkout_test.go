package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// After lab run, its --out file is checked: a row cut in the middle is
// named with the file, and a failed run (its loadgen killed) says the rows
// are only those written before; a whole CSV of a run that went well says
// nothing. Before, lab run left a cut CSV behind without a word.
func TestRunChecksItsCSV(t *testing.T) {
	dir := t.TempDir()
	head := "run,seq,client,key,intended_ms,sent_ms,latency_ms,attempts,outcome,server\n"
	row := "p2c,1,2,3,4,5,6,1,succeeded,s1\n"
	for _, c := range []struct {
		text   string
		runErr error
		want   string
	}{
		{head + row + "p2c,2,2,3,4,5", errors.New("loadgen failed"), "cut.csv: row 2 (line 3) is cut or malformed"},
		{head + row + row + "p2c,3,2,3,4,5,6,1,succeeded,s", nil, "cut.csv: row 3 (line 4) is cut"},
		{head + row + row, errors.New("loadgen failed: signal: killed"), "cut.csv holds 2 whole rows: the run failed"},
		{head + row + row, nil, ""},
	} {
		path := filepath.Join(dir, "cut.csv")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		tf := &traceFlags{}
		tf.files.Out = path
		var errOut bytes.Buffer
		tf.checkOut(&errOut, c.runErr)
		if c.want == "" && errOut.Len() > 0 || c.want != "" && (!strings.Contains(errOut.String(), c.want) ||
			!strings.HasPrefix(errOut.String(), "lab run: warning: ")) {
			t.Errorf("%q (run error %v): warned %q, want %q", c.text, c.runErr, errOut.String(), c.want)
		}
	}
}
