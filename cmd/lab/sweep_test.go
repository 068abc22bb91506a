package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sweepJSON is the part of the sweep report these tests read.
type sweepJSON struct {
	Mode  string
	Seeds []uint64
	Axes  []struct {
		Path   string
		Values []string
		Unit   string
	}
	Points []struct {
		Values  []string
		X       float64
		Line    string
		Name    string
		Figures map[string]struct {
			Mean, Lo, Hi float64
			PerSeed      []float64 `json:"per_seed"`
		}
	}
	Knees []struct {
		Line          string
		BoundMS       float64 `json:"bound_ms"`
		Found, Beyond bool
		X             float64
		Value         string
		P99           float64 `json:"p99_ms"`
	}
}

func decodeSweep(t *testing.T, out string) sweepJSON {
	t.Helper()
	var s sweepJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("not JSON: %v\n%.500s", err, out)
	}
	return s
}

// The hockey stick on slow-server: round robin keeps feeding the slow
// server and its p99 climbs at a far lower rate than the load-aware
// algorithms'. The knees say so, and every output form is written.
func TestSweepSlowServerKnees(t *testing.T) {
	dir := t.TempDir()
	csvPath, svg := filepath.Join(dir, "sweep.csv"), filepath.Join(dir, "sweep.svg")
	out, errOut, code := lab(t, "sweep", "slow-server", "--vary", "clients.rate=50:300:50",
		"--compare", "round-robin,least-outstanding,p2c", "--knee", "2x", "--duration", "15s",
		"--json", "--csv", csvPath, "--plot", svg)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := decodeSweep(t, out)
	if len(s.Points) != 18 || len(s.Axes) != 1 || s.Axes[0].Path != "clients.rate" || len(s.Knees) != 3 {
		t.Fatalf("%d points, axes %+v, %d knees", len(s.Points), s.Axes, len(s.Knees))
	}
	wantRates := []string{"50", "100", "150", "200", "250", "300"}
	if !slices.Equal(s.Axes[0].Values, wantRates) || s.Points[0].X != 50 || s.Points[5].X != 300 {
		t.Errorf("values %v, x %v..%v", s.Axes[0].Values, s.Points[0].X, s.Points[5].X)
	}
	knee := map[string]float64{}
	for _, k := range s.Knees {
		if !k.Found || k.P99 > k.BoundMS {
			t.Errorf("knee %+v", k)
		}
		knee[k.Line] = k.X
	}
	if !(knee["round-robin"] < knee["p2c"] && knee["round-robin"] < knee["least-outstanding"]) {
		t.Errorf("round robin's knee should come at a lower rate: %v", knee)
	}
	// The knee is the last point under the bound: the next point is over it.
	for _, k := range s.Knees {
		for _, p := range s.Points {
			if p.Line == k.Line && p.X == k.X+50 && p.Figures["p99"].Mean <= k.BoundMS && !k.Beyond {
				t.Errorf("%s: the point after the knee (%v) is still under the bound", k.Line, p.X)
			}
		}
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 19 || rows[0][0] != "clients.rate" || !slices.Contains(rows[0], "p99_lo") {
		t.Errorf("CSV: %d rows, %v, head %v", len(rows), err, rows[0])
	}
	pic, err := os.ReadFile(svg)
	if err != nil || !strings.Contains(string(pic), "<svg") || !strings.Contains(string(pic), "knee") {
		t.Errorf("plot: %v, %d bytes", err, len(pic))
	}
	for _, want := range []string{"CSV written to " + csvPath, "plot written to " + svg, "18 runs (6 points x 3 settings x 1 seed)"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %s", want, errOut)
		}
	}
}

// A sweep point is the lab with the axes applied: slow-server's own rate
// is 200/s, so the point at 200 gives exactly lab sim's figures, seed by
// seed; with --seeds each point has its interval, and the table shows them.
func TestSweepPointMatchesSim(t *testing.T) {
	out, errOut, code := lab(t, "sweep", "slow-server", "--vary", "clients.rate=100,200", "--vary", "algorithm=p2c,random",
		"--seeds", "3", "--duration", "6s", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s := decodeSweep(t, out)
	if len(s.Points) != 4 || s.Axes[1].Unit != "text" || !slices.Equal(s.Seeds, []uint64{1, 2, 3}) {
		t.Fatalf("%d points, axes %+v, seeds %v", len(s.Points), s.Axes, s.Seeds)
	}
	lines := []string{s.Points[0].Line, s.Points[2].Line}
	if !slices.Equal(lines, []string{"p2c", "random"}) || s.Points[1].Values[0] != "200" || s.Points[1].Values[1] != "p2c" {
		t.Fatalf("lines %v, point 1 %v", lines, s.Points[1].Values)
	}
	simOut, _ := labEnv(t, nil, "sim", "slow-server", "--compare", "p2c,random", "--seeds", "3", "--duration", "6s", "--json")
	r := decodeSeeds(t, simOut)
	for i, p := range []int{1, 3} { // clients.rate=200 under p2c, then random
		got, want := s.Points[p].Figures["p99"], r.Seeds.Settings[i].Figures["p99"]
		if !slices.Equal(got.PerSeed, want.PerSeed) || got.Lo != want.Lo || !(got.Lo < got.Mean && got.Mean < got.Hi) {
			t.Errorf("%s at 200/s: sweep %+v, sim %+v", s.Points[p].Line, got, want)
		}
	}
	table, _, _ := lab(t, "sweep", "slow-server", "--vary", "clients.rate=100,200", "--compare", "p2c", "--seeds", "3", "--duration", "6s")
	for _, want := range []string{"lab sweep slow-server (sim, 3 seeds: 1-3, 6s)", "clients.rate: 100, 200", "Student's t", "±", "knee: the highest clients.rate"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

func TestSweepBadInputExits2(t *testing.T) {
	writeTemp := func(name, src string) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	cases := map[string][]string{
		"unknown field \"nosuch\"":     {"sweep", "slow-server", "--vary", "nosuch.key=1:2:1"},
		"the step must be more than 0": {"sweep", "slow-server", "--vary", "clients.rate=100:200:0"},
		"one to 3 axes (got 4)": {"sweep", "slow-server", "--vary", "clients.rate=1:2:1", "--vary", "clients.retries=1,2",
			"--vary", "servers.workers=1,2", "--vary", "clients.timeout=1s,2s"},
		"one to 3 axes (got 0)":       {"sweep", "slow-server"},
		"FROM must not exceed TO":     {"sweep", "slow-server", "--vary", "clients.rate=5:1:1"},
		"FROM:TO:STEP":                {"sweep", "slow-server", "--vary", "clients.rate=1:2"},
		"must be one of round-robin":  {"sweep", "slow-server", "--vary", "algorithm=rr,p2c"},
		"must be in (0, 1000000]":     {"sweep", "slow-server", "--vary", "clients.rate=0:100:50"},
		"a factor is a number over 1": {"sweep", "slow-server", "--vary", "clients.rate=100,200", "--knee", "0.5x"},
		"not numeric":                 {"sweep", "slow-server", "--vary", "algorithm=p2c,random", "--plot", "x.svg"},
		"vary it or compare it":       {"sweep", "slow-server", "--vary", "algorithm=p2c,random", "--compare", "p2c"},
		"listed twice":                {"sweep", "slow-server", "--vary", "clients.rate=100,100"},
		"sets the same knob":          {"sweep", "slow-server", "--vary", "clients.rate=100,200", "--vary", "clients.rate=1,2"},
		"(algorithm) sets the same":   {"sweep", "slow-server", "--vary", "algorithm=p2c,random", "--vary", "balancers.algorithm=p2c"},
		"the range 3-1 is empty":      {"sweep", "slow-server", "--vary", "clients.rate=100,200", "--seeds", "3-1"},
		"--max-points 14 runs them":   {"sweep", "slow-server", "--vary", "clients.rate=100,200", "--live", "--compare", "p2c,random,round-robin,least-outstanding,maglev,ring-hash,weighted-round-robin"},
		"--max-points: must be":       {"sweep", "slow-server", "--vary", "clients.rate=100", "--compare", "p2c", "--live", "--max-points", "0"},
		// a script event's fields: the path's own mistakes name the flag, not a line of the file
		"at events[5].speed=0.5: events[5]: index 5 is past the script: it has 1 event (0..0)":                  {"sweep", "retry-storm", "--vary", "events[5].speed=0.5"},
		"at events[0].rate=5: events[0].rate: is not a field of a slow event (it takes at, for, target, speed)": {"sweep", "retry-storm", "--vary", "events[0].rate=5"},
		"at events[0].speed=0: events[0].speed: slow needs speed in (0, 100]":                                   {"sweep", "retry-storm", "--vary", "events[0].speed=0,0.5"},
		"at events.speed=0.5: events: name one event by its index":                                              {"sweep", "retry-storm", "--vary", "events.speed=0.5"},
		// ... and a value that breaks a line of the file names that line
		"retry-storm.yaml:37:58: events[0].for: the undo at 41.5s": {"sweep", "retry-storm", "--vary", "events[0].at=40s"},
		"the setting \"late\" sets it too": {"sweep", writeTemp("late.yaml", "duration: 5s\nevents:\n  - {at: 1s, action: slow, target: all, speed: 0.5, for: 1s}\n"+
			"compare:\n  - {name: late, set: {\"events[0].at\": 2s}}\n"), "--vary", "events[0].at=1s,3s"},
	}
	for want, args := range cases {
		out, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, want) || out != "" || strings.Contains(errOut, "runs in") ||
			strings.Contains(errOut, "process logs") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q before anything runs", args, code, out, errOut, want)
		}
	}
}
