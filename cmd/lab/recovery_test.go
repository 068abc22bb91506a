package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// lab sim prints the recovery verdicts and puts them in the JSON, without
// the series it needed unless --series; with --seeds, on how many seeds
// each setting recovered.
func TestSimRecoveryVerdicts(t *testing.T) {
	out, errOut, code := lab(t, "sim", "retry-storm", "--compare", "retries,retry-budget")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"recovery from slow all speed=0.5 for=1.5s (5s to 6.5s)", "did not recover within the run (metastable)", "back 1.5s after it ended"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}

	out, errOut, code = lab(t, "sim", "breaker", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Runs []struct {
			Name     string            `json:"name"`
			Series   []json.RawMessage `json:"series"`
			Recovery []struct {
				Event   string   `json:"event"`
				From    float64  `json:"from_s"`
				To      float64  `json:"to_s"`
				Verdict string   `json:"verdict"`
				After   *float64 `json:"recovered_after_s"`
			} `json:"recovery"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		if r.Series != nil || len(r.Recovery) != 1 || r.Recovery[0].Event != "fail s2" || r.Recovery[0].From != 5 || r.Recovery[0].To != 12 ||
			r.Recovery[0].Verdict != "recovered" || r.Recovery[0].After == nil {
			t.Errorf("%s: series %d bins, recovery %+v; want no series and fail s2 5-12 s recovered", r.Name, len(r.Series), r.Recovery)
		}
	}

	out, errOut, code = lab(t, "sim", "retry-storm", "--compare", "retries,retry-budget", "--seeds", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var seeds struct {
		Seeds struct {
			Recovery []struct {
				Setting   string     `json:"setting"`
				Recovered int        `json:"recovered"`
				Seeds     int        `json:"seeds"`
				After     []*float64 `json:"recovered_after_s"`
			} `json:"recovery"`
		} `json:"seeds"`
	}
	if err := json.Unmarshal([]byte(out), &seeds); err != nil {
		t.Fatal(err)
	}
	got := seeds.Seeds.Recovery
	if len(got) != 2 || got[0].Setting != "retries" || got[0].Recovered != 0 || len(got[0].After) != 3 || got[0].After[0] != nil ||
		got[1].Setting != "retry-budget" || got[1].Recovered != 3 || got[1].After[2] == nil {
		t.Errorf("recovery over 3 seeds: %+v; want retries on none, retry-budget on all 3", got)
	}
}

// lab sweep over the rate finds where retry-storm's fleet stops
// recovering from the same slowdown: at 400 requests/s it recovers even
// with three retries, at 700 (the scenario's load) it does not.
func TestSweepMetastabilityBoundary(t *testing.T) {
	out, errOut, code := lab(t, "sweep", "retry-storm", "--vary", "clients.rate=400,700", "--compare", "retries", "--seeds", "2", "--duration", "15s", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Points []struct {
			X        float64 `json:"x"`
			Recovery *struct {
				Recovered int `json:"recovered"`
				Seeds     int `json:"seeds"`
			} `json:"recovery"`
		} `json:"points"`
		Boundaries []struct {
			Line          string `json:"line"`
			Found         bool   `json:"found"`
			Beyond        bool   `json:"beyond"`
			RecoversValue string `json:"recovers_value"`
			FailsValue    string `json:"fails_value"`
		} `json:"metastability"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 2 || s.Points[0].Recovery == nil || s.Points[0].Recovery.Recovered != 2 || s.Points[1].Recovery == nil || s.Points[1].Recovery.Recovered != 0 {
		t.Fatalf("points %+v: want recovered on 2 of 2 seeds at 400, 0 at 700", s.Points)
	}
	if b := s.Boundaries; len(b) != 1 || !b[0].Found || b[0].Beyond || b[0].RecoversValue != "400" || b[0].FailsValue != "700" {
		t.Errorf("boundary %+v, want between 400 and 700", b)
	}
	table, _, _ := lab(t, "sweep", "retry-storm", "--vary", "clients.rate=400,700", "--compare", "retries", "--seeds", "2", "--duration", "15s")
	if !strings.Contains(table, "retries  between 400 and 700  (recovered on: 400:2/2 700:0/2)") {
		t.Errorf("table lacks the boundary:\n%s", table)
	}
	svg := filepath.Join(t.TempDir(), "sweep.svg")
	if _, errOut, code := lab(t, "sweep", "retry-storm", "--vary", "clients.rate=400,700", "--compare", "retries", "--seeds", "2", "--duration", "15s", "--plot", svg); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if data, err := os.ReadFile(svg); err != nil || !strings.Contains(string(data), "retries: no recovery from slow all speed=0.5 for=1.5s above 400-700") {
		t.Errorf("the plot does not name the boundary (%v)", err)
	}
}

// lab sweep varies the trigger itself: retry-storm's slowdown at half speed
// tips the fleet with three retries on every seed, the same 1.5 s at 0.8x
// speed does not, and a half-speed slowdown of 0.5 s is survived on seed
// 1 (the runs differ only by the event, so the verdict follows it).
func TestSweepOverATrigger(t *testing.T) {
	out, errOut, code := lab(t, "sweep", "retry-storm", "--vary", "events[0].speed=0.5,0.8", "--compare", "retries", "--seeds", "2", "--duration", "15s", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Points []struct {
			Values   []string `json:"values"`
			Recovery *struct {
				Event     string `json:"event"`
				Recovered int    `json:"recovered"`
			} `json:"recovery"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 2 || s.Points[0].Recovery == nil || s.Points[1].Recovery == nil ||
		s.Points[0].Recovery.Recovered != 0 || s.Points[1].Recovery.Recovered != 2 ||
		s.Points[1].Recovery.Event != "slow all speed=0.8 for=1.5s" {
		t.Fatalf("points %+v: want no recovery at speed 0.5 and 2 of 2 at 0.8, the event as varied", s.Points)
	}
	out, errOut, code = lab(t, "sweep", "retry-storm", "--vary", "events[0].for=500ms,1500ms", "--compare", "retries", "--seed", "1", "--duration", "15s", "--json")
	if err := json.Unmarshal([]byte(out), &s); code != 0 || err != nil {
		t.Fatalf("exit %d (%v): %s", code, err, errOut)
	}
	if len(s.Points) != 2 || s.Points[0].Recovery.Recovered != 1 || s.Points[1].Recovery.Recovered != 0 ||
		s.Points[0].Recovery.Event != "slow all speed=0.5 for=500ms" {
		t.Errorf("points %+v: want 0.5 s survived and 1.5 s not on seed 1", s.Points)
	}
}

// The metastability map through the command: two axes over retry-storm's
// trigger give each setting a grid of verdicts with its boundary in the
// JSON, the CSV, the table and the --plot heat map, and the same map from
// a sweep run in shards and merged.
func TestSweepMetastabilityMap(t *testing.T) {
	dir := t.TempDir()
	csvPath, svg := filepath.Join(dir, "map.csv"), filepath.Join(dir, "map.svg")
	args := []string{"sweep", "retry-storm", "--vary", "events[0].speed=0.5,0.8", "--vary", "events[0].for=500ms,1500ms",
		"--compare", "retries,retry-budget", "--seed", "1", "--duration", "15s"}
	out, errOut, code := lab(t, append(args, "--json", "--csv", csvPath, "--plot", svg)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Maps []struct {
			Setting string `json:"setting"`
			Cells   []struct {
				X, Y      string
				Recovered int
			} `json:"cells"`
			Boundary []struct {
				Axis, At, Recovers, Fails string
			} `json:"boundary"`
			Recovering int `json:"recovering_cells"`
		} `json:"maps"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Maps) != 2 || s.Maps[0].Setting != "retries" || len(s.Maps[0].Cells) != 4 {
		t.Fatalf("maps %+v: want retries and retry-budget, 2x2 cells", s.Maps)
	}
	// seed 1: half speed for 0.5 s is survived, for 1.5 s not; 0.8x always
	r := s.Maps[0]
	if got := []int{r.Cells[0].Recovered, r.Cells[1].Recovered, r.Cells[2].Recovered, r.Cells[3].Recovered}; !slices.Equal(got, []int{1, 1, 0, 1}) ||
		len(r.Boundary) != 2 || r.Boundary[0].At != "1500ms" || r.Boundary[0].Recovers != "0.8" || r.Recovering != 3 {
		t.Errorf("retries' map %+v: want only (0.5, 1.5 s) down, the boundary around it", r)
	}
	if b := s.Maps[1]; b.Recovering != 4 || len(b.Boundary) != 0 {
		t.Errorf("retry-budget's map %+v: want every cell recovering", b)
	}
	data, err := os.ReadFile(csvPath)
	if err != nil || !strings.Contains(strings.SplitN(string(data), "\n", 2)[0], ",recovered,median_after_s") {
		t.Errorf("CSV without the verdicts (%v): %.200s", err, data)
	}
	if data, err := os.ReadFile(svg); err != nil || !strings.Contains(string(data), "retry-storm, retry-budget: seeds that recovered from slow all speed=… for=…") {
		t.Errorf("the plot is not the map (%v)", err)
	}
	var parts []string
	for i := range 2 {
		part := filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		if _, errOut, code := lab(t, append(args, "--shard", fmt.Sprintf("%d/2", i), "--part", part)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
		parts = append(parts, part)
	}
	merged, errOut, code := lab(t, append([]string{"sweep", "merge", "--json"}, parts...)...)
	if code != 0 || merged != out {
		t.Errorf("merged shards (exit %d, %s) differ from the sweep run whole", code, errOut)
	}
}

// Hysteresis: once retry-storm's fleet has tipped at 700 requests/s, a
// rate event after the slowdown swept over the rate finds how far the load
// must fall for it to come back: to 100/s it recovers, at 600/s it stays
// down; the report puts that beside the 700/s that tipped it.
func TestSweepHysteresis(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hyst.yaml")
	src := "duration: 20s\nclients: {rate: 700, work: {dist: exponential, mean: 20ms}, retries: 3, backoff: {base: 10ms, jitter: full}}\n" +
		"balancers: {algorithm: least-outstanding, timeout: 200ms}\nservers: [{count: 5, workers: 4}]\n" +
		"events:\n  - {at: 5s, action: slow, target: all, speed: 0.5, for: 1500ms}\n  - {at: 7s, action: rate, rate: 700}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := lab(t, "sweep", path, "--vary", "events[1].rate=100,600", "--seed", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		RecoveryRate bool `json:"recovery_rate"`
		Hysteresis   []struct {
			Tipped     float64 `json:"tipped_rate"`
			RecoversAt string  `json:"recovers_at"`
			FailsAt    string  `json:"fails_at"`
		} `json:"hysteresis"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if h := s.Hysteresis; !s.RecoveryRate || len(h) != 1 || h[0].Tipped != 700 || h[0].RecoversAt != "100" || h[0].FailsAt != "600" {
		t.Errorf("hysteresis %+v: want tipped at 700, recovering at 100, not at 600", s)
	}
	table, _, _ := lab(t, "sweep", path, "--vary", "events[1].rate=100,600", "--seed", "1")
	if !strings.Contains(table, "tipped at 700/s  recovers once it falls to 100/s (not at 600/s)") {
		t.Errorf("table lacks the hysteresis:\n%s", table)
	}
	// a rate event before the trigger ends is no recovery load: no hysteresis
	out, _, _ = lab(t, "sweep", path, "--vary", "events[1].rate=100,600", "--vary", "events[1].at=6s", "--seed", "1", "--json")
	if strings.Contains(out, `"hysteresis"`) {
		t.Errorf("hysteresis for a rate event inside the trigger:\n%.300s", out)
	}
}

// A third axis slices the map: retry-storm's trigger over speed and length
// at two loads gives a map per load; at 400 requests/s every cell recovers
// on seed 1, at 700/s half speed for 1.5 s does not (the lower load
// survives what tips the higher one). Shards merge to the same sweep.
func TestSweepMapSlicedByLoad(t *testing.T) {
	args := []string{"sweep", "retry-storm", "--vary", "events[0].speed=0.5,0.8", "--vary", "events[0].for=500ms,1500ms",
		"--vary", "clients.rate=400,700", "--compare", "retries", "--seed", "1", "--duration", "15s"}
	out, errOut, code := lab(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s struct {
		Maps []struct {
			Setting, Slice string
			Recovering     int `json:"recovering_cells"`
		} `json:"maps"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Maps) != 2 || s.Maps[0].Slice != "clients.rate=400" || s.Maps[1].Slice != "clients.rate=700" ||
		s.Maps[0].Recovering != 4 || s.Maps[1].Recovering != 3 {
		t.Errorf("maps %+v: want one at 400/s (4 of 4 cells recover) and one at 700/s (3 of 4)", s.Maps)
	}
	table, _, _ := lab(t, args...)
	if !strings.Contains(table, "metastability map of retries at clients.rate=700") || !strings.Contains(table, "retries at clients.rate=700  all    0.5|0.8  3 of 4") {
		t.Errorf("the table lacks the sliced maps:\n%s", table)
	}
	dir := t.TempDir()
	var parts []string
	for i := range 2 {
		part := filepath.Join(dir, fmt.Sprintf("part-%d.json", i))
		if _, errOut, code := lab(t, append(args, "--shard", fmt.Sprintf("%d/2", i), "--part", part)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
		parts = append(parts, part)
	}
	if merged, errOut, code := lab(t, append([]string{"sweep", "merge", "--json"}, parts...)...); code != 0 || merged != out {
		t.Errorf("merged shards (exit %d, %s) differ from the sweep run whole", code, errOut)
	}
}
