package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/reporttest"
)

func TestWritePlot(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.svg", "a.png"} {
		path := filepath.Join(dir, name)
		if err := Plot(reporttest.TwoSettings(), path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 1000 {
			t.Fatalf("%s: %d bytes, %v", name, len(data), err)
		}
		if strings.HasSuffix(name, ".svg") && (!strings.Contains(string(data), "slow") || !strings.Contains(string(data), "<svg")) {
			t.Errorf("the SVG should name each setting")
		}
		if strings.HasSuffix(name, ".png") && !bytes.HasPrefix(data, []byte("\x89PNG")) {
			t.Errorf("not a PNG")
		}
	}
	if err := Plot(reporttest.TwoSettings(), filepath.Join(dir, "a.gif")); err == nil {
		t.Error("a .gif plot should be refused")
	}
}

// A report without latency data (a live run's report without its CDF, or a
// run where nothing succeeded) is a clear error, never a panic; one with
// only some of the data draws what it has.
func TestWritePlotMissingData(t *testing.T) {
	dir := t.TempDir()
	empty := &report.Report{Mode: "live", Lab: "t", Runs: []report.Run{{Name: "a"}, {Name: "b", CDF: make([]float64, 101),
		Series: []report.Bin{{T: 0}, {T: 0.25}}}}}
	err := Plot(empty, filepath.Join(dir, "empty.png"))
	if err == nil || !strings.Contains(err.Error(), "nothing to draw") {
		t.Errorf("a report with no latency at all: %v, want an error saying there is nothing to draw", err)
	}
	noCDF := reporttest.TwoSettings()
	for i := range noCDF.Runs {
		noCDF.Runs[i].CDF = nil
	}
	constant := reporttest.TwoSettings()
	for i := range constant.Runs {
		for j := range constant.Runs[i].CDF {
			constant.Runs[i].CDF[j] = 5
		}
		constant.Runs[i].Series = nil
	}
	for name, rep := range map[string]*report.Report{"no-cdf.png": noCDF, "constant.svg": constant, "no-cdf.svg": noCDF} {
		path := filepath.Join(dir, name)
		if err := Plot(rep, path); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", name, err)
		}
	}
}
