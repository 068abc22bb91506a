package site

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// TestSiteFigures measures what docs/BENCHMARKS.md's "The page" section
// gives: the module's size (raw and gzip -9), the time from opening the
// page to its first frame, and the simulator's events/s in the page next
// to native lab sim, on the same lab file in the same run. It runs only
// from bench/site.sh, which builds lab and names it in LBLAB_SITE_BENCH.
func TestSiteFigures(t *testing.T) {
	labBin := os.Getenv("LBLAB_SITE_BENCH")
	if labBin == "" {
		t.Skip("a benchmark: bench/site.sh runs it (LBLAB_SITE_BENCH=path/to/lab)")
	}
	dir := siteDir(t)
	wasm, err := os.ReadFile(filepath.Join(dir, WasmFile))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, _ = zw.Write(wasm)
	_ = zw.Close()
	fmt.Printf("module: %s %.1f MB, gzip -9 %.1f MB\n", WasmFile, float64(len(wasm))/1e6, float64(gz.Len())/1e6)

	// The lab: mixed-fleet (its three compare settings), 12 times as long.
	l := scenarioFile(t, "mixed-fleet")
	if err := l.Apply("duration", (12 * l.Duration).String()); err != nil {
		t.Fatal(err)
	}
	text, err := labyaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "bench.yaml")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := labyaml.Parse(file, text); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	native, err := exec.Command(labBin, "sim", file, "--json").Output()
	if err != nil {
		t.Fatalf("lab sim: %v", err)
	}
	nativeS := time.Since(start).Seconds()
	events := simEvents(t, native)

	ctx := page(t)
	first := evalJS[float64](t, ctx, 5*time.Second, `lblab.firstFrameMs`)
	load := evalJS[float64](t, ctx, 5*time.Second, `lblab.engine.loadMs`)
	ph := evalJS[map[string]float64](t, ctx, 5*time.Second, `lblab.engine.phases`)
	fmt.Printf("first frame: %.0f ms after opening the page (the module fetched, compiled and started in %.0f ms: its last byte at %.0f ms, compiled at %.0f ms, started at %.0f ms, since the worker started)\n",
		first, load, ph["download_ms"], ph["compile_ms"], ph["start_ms"])
	body, _ := json.Marshal(map[string]string{"file": "bench.yaml", "yaml": string(text)})
	evalJS[bool](t, ctx, 30*time.Second, fmt.Sprintf(`lblab.engine.request('POST', '/api/lab', %q).then(r => r.ok || Promise.reject(r.text))`, body))
	out := evalJS[string](t, ctx, 5*time.Minute, `(async () => { const t0 = performance.now();
		const r = await lblab.engine.request('GET', '/api/report.json');
		return JSON.stringify({ms: performance.now() - t0, text: r.text}); })()`)
	var got struct {
		Ms   float64
		Text string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if pe := simEvents(t, []byte(got.Text)); pe != events {
		t.Fatalf("the page simulated %d events, lab sim %d: not the same run", pe, events)
	}
	pageS := got.Ms / 1e3
	fmt.Printf("events/s: page %.2fM, native lab sim %.2fM (%d events, %.2f s vs %.2f s): page/native %.2f\n",
		float64(events)/pageS/1e6, float64(events)/nativeS/1e6, events, pageS, nativeS, nativeS/pageS)
}

var simEventsRE = regexp.MustCompile(`"sim_events": ([0-9]+)`)

func simEvents(t *testing.T, report []byte) uint64 {
	t.Helper()
	var n uint64
	for _, m := range simEventsRE.FindAllSubmatch(report, -1) {
		v, _ := strconv.ParseUint(string(m[1]), 10, 64)
		n += v
	}
	if n == 0 {
		t.Fatalf("no sim_events in the report: %.300s", report)
	}
	return n
}
