package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyLab writes a lab of two servers at light load, for short live runs.
func tinyLab(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.yaml")
	lab := "name: tiny\nduration: 2s\nnetwork: {hop: 1ms}\nclients: {rate: 50, work: {dist: exponential, mean: 4ms}}\n" +
		"servers: [{count: 2, workers: 2}]\n"
	if err := os.WriteFile(path, []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lab run --plot: the live report is printed and the plot drawn from it
// (latency over time and the CDF, which the live report carries).
func TestRunPlot(t *testing.T) {
	dir := t.TempDir()
	png := filepath.Join(dir, "out.png")
	out, errOut, code := lab(t, "run", tinyLab(t), "--compare", "round-robin,p2c", "--plot", png,
		"--dashboard", "", "--logs", filepath.Join(dir, "processes.log"))
	if code != 0 || !strings.Contains(out, "lab tiny (live, seed 1, 2s)") || !strings.Contains(out, "round-robin") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	data, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || !strings.Contains(errOut, "plot written to "+png) {
		t.Fatalf("the plot: %v (%d bytes), stderr:\n%s", err, len(data), errOut)
	}
	svg := filepath.Join(dir, "out.svg")
	out, errOut, code = lab(t, "run", tinyLab(t), "--plot", svg, "--json", "--dashboard", "", "--logs", filepath.Join(dir, "processes.log"))
	data, _ = os.ReadFile(svg)
	if code != 0 || !strings.Contains(out, `"mode": "live"`) || strings.Contains(out, `"cdf_ms"`) ||
		!strings.Contains(string(data), "latency CDF") {
		t.Fatalf("--json --plot: exit %d, the JSON should carry no series or CDF (not asked for), the SVG a CDF panel\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// A --plot file that cannot be written is refused before anything runs.
func TestPlotPathCheckedFirst(t *testing.T) {
	for _, args := range [][]string{
		{"run", "rr-slow", "--plot", "/no/such/dir/out.png", "--dashboard", ""},
		{"sim", "rr-slow", "--plot", "out.gif"},
	} {
		_, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, "--plot") || strings.Contains(errOut, "process logs") {
			t.Errorf("%v: exit %d, stderr %q; want 2 before anything starts", args, code, errOut)
		}
	}
}

// balls-bins (1,000 servers, nothing ever finishes) prints a readable
// table ranked by its headline, the fullest server's queue, and no 0 ms
// latencies for requests that never finished.
func TestBallsBinsTable(t *testing.T) {
	out, errOut, code := lab(t, "sim", "balls-bins")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 130 {
			t.Fatalf("a line of %d characters", len(line))
		}
	}
	if !strings.Contains(out, "ranked by the fullest server's longest queue (max queue)") || strings.Contains(out, "0.0ms") ||
		!strings.Contains(out, "busiest") || strings.Index(out, "three-choices") > strings.Index(out, "one-choice") {
		t.Errorf("balls-bins table:\n%s", out)
	}
}
