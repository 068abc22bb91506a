package output

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
)

// record fills a recorder with n requests 10 ms apart: a third shed after a
// retry, the rest served in 1-50 ms, a bin closed every 25.
func record(n int) *report.Recorder {
	r := report.NewRecorder(true)
	for i := 0; i < n; i++ {
		start := clock.Instant(i) * clock.Instant(10*time.Millisecond)
		r.Offered(start)
		r.Attempt(server.First)
		c := policy.Call{Start: start, Outcome: policy.Succeeded}
		if i%3 == 0 {
			r.Result(policy.Error)
			r.Attempt(server.Retry)
			r.Result(policy.Rejected)
			c.Outcome = policy.Shed
		}
		r.Finish(start.Add(time.Duration(i%50+1)*time.Millisecond), &c)
		if i%25 == 24 {
			r.CloseBin(start, nil)
		}
	}
	return r
}

// testReport is two settings, "slow" with ten times the other's p99.
func testReport() *report.Report {
	rep := &report.Report{Mode: "sim", Lab: "t", Seed: 1, DurationS: 3}
	for _, name := range []string{"slow", "fast"} {
		run := report.Run{Name: name, Algorithm: name, Servers: []report.Server{{Name: "s1", Sent: 10, Share: 1}}}
		record(300).Fill(&run, clock.Instant(3*time.Second))
		if name == "slow" {
			run.Latency.P99 *= 10
		}
		rep.Runs = append(rep.Runs, run)
	}
	return rep
}

func TestWritePlot(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.svg", "a.png"} {
		path := filepath.Join(dir, name)
		if err := Plot(testReport(), path); err != nil {
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
	if err := Plot(testReport(), filepath.Join(dir, "a.gif")); err == nil {
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
	noCDF := testReport()
	for i := range noCDF.Runs {
		noCDF.Runs[i].CDF = nil
	}
	constant := testReport()
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
