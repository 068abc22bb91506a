package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/workload"
)

// requestsOf reads a trace's requests (seq -> key).
func requestsOf(t *testing.T, path string) map[uint64]uint64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, workload.MaxTraceLine)
	out := map[uint64]uint64{}
	for first := true; sc.Scan(); first = false {
		if first {
			continue // the header
		}
		var r workload.TraceRequest
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.Seq] = r.Key
	}
	return out
}

func reportOf(t *testing.T, out string) *report.Report {
	t.Helper()
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	return &rep
}

// Record and replay across the clocks: a live run recorded with lab run,
// replayed in lab sim with the same settings, has the same requests and
// keys, and two replays give the same report (that another algorithm gives
// its own result on a trace: TestReplayedTraceThroughRoundRobinAndP2C).
func TestLiveRecordingReplayedInSim(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the live lab")
	}
	dir := t.TempDir()
	live, replayed := filepath.Join(dir, "live.trace"), filepath.Join(dir, "replayed.trace")
	labFile := filepath.Join(dir, "lab.yaml")
	if err := os.WriteFile(labFile, []byte(`name: record-replay
seed: 4
duration: 3s
clients: {rate: 200, work: {dist: exponential, mean: 40ms}}
balancers: {algorithm: p2c}
servers:
  - {count: 3, workers: 4}
network: {hop: 1ms}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := lab(t, "run", labFile, "--record", live,
		"--dashboard", "", "--logs", filepath.Join(dir, "logs"), "--json")
	if code != 0 {
		t.Fatalf("lab run: exit %d\n%s", code, errOut)
	}
	liveRun := reportOf(t, out).Runs[0]
	out, errOut, code = lab(t, "sim", labFile, "--replay", live, "--record", replayed, "--json")
	if code != 0 {
		t.Fatalf("lab sim --replay: exit %d\n%s", code, errOut)
	}
	simRun := reportOf(t, out).Runs[0]
	a, b := requestsOf(t, live), requestsOf(t, replayed)
	if uint64(len(a)) != liveRun.Requests || simRun.Requests != liveRun.Requests || len(b) != len(a) {
		t.Fatalf("live: %d requests (%d in its trace); sim replay: %d (%d in its trace)", liveRun.Requests, len(a), simRun.Requests, len(b))
	}
	for seq, key := range a {
		if k, ok := b[seq]; !ok || k != key {
			t.Fatalf("request %d: key %d live, %d (present %v) replayed", seq, key, k, ok)
		}
	}
	// How close the p50s are is live-vs-virtual fidelity, a wall-clock
	// figure: bench/record-replay.sh measures it (docs/BENCHMARKS.md).
	t.Logf("p50: live %.2f ms, replayed in sim %.2f ms (%+.0f%%)", liveRun.Latency.P50, simRun.Latency.P50,
		100*(simRun.Latency.P50-liveRun.Latency.P50)/liveRun.Latency.P50)
	// Replayed in sim again: the same report, every time.
	again, _, _ := lab(t, "sim", labFile, "--replay", live, "--json")
	if again != out {
		t.Error("two replays of one trace in lab sim gave different reports")
	}
}

// On rr-slow's stream (recorded by lab sim), round robin's p99 stays far
// above p2c's when the trace is replayed through both.
func TestReplayedTraceThroughRoundRobinAndP2C(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "rr.trace")
	if _, errOut, code := lab(t, "sim", "rr-slow", "--compare", "round-robin", "--record", trace); code != 0 {
		t.Fatalf("record: exit %d: %s", code, errOut)
	}
	out, errOut, code := lab(t, "sim", "rr-slow", "--replay", trace, "--compare", "round-robin,p2c", "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	rep := reportOf(t, out)
	rr, p2c := rep.Find("round-robin"), rep.Find("p2c")
	if rr == nil || p2c == nil || rr.Latency.P99 < 4*p2c.Latency.P99 || rep.DurationS != 20 {
		t.Fatalf("replayed rr-slow: %s", out[:min(len(out), 400)])
	}
}

// Bad uses of the new flags are exit status 2, before anything runs.
func TestTraceFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("timestamp,duration\n1,0.01\nsoon,0.01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"--record: a trace holds one run":          {"sim", "rr-slow", "--record", filepath.Join(dir, "x")},
		bad + ":3: timestamp":                      {"sim", "rr-slow", "--replay", bad},
		"--out: lab run writes it for one setting": {"run", "rr-slow", "--out", filepath.Join(dir, "y"), "--dashboard", ""},
		"--hdr-log: ":                              {"sim", "rr-slow", "--compare", "p2c", "--hdr-log", filepath.Join(dir, "no", "such", "dir")},
	}
	for want, args := range cases {
		_, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, code, errOut, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("a refused --record still created its file")
	}
}
