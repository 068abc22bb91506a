package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// labEnv runs the built binary with extra environment variables.
func labEnv(t *testing.T, env []string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(labBin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("lab %v: %v\n%s", args, err, errOut.String())
	}
	return out.String(), errOut.String()
}

// seedsReport is the part of the JSON report these tests read.
type seedsReport struct {
	Seed  uint64            `json:"seed"`
	Runs  []json.RawMessage `json:"runs"`
	Seeds struct {
		List     []uint64 `json:"list"`
		Method   string   `json:"method"`
		Settings []struct {
			Name    string `json:"name"`
			Figures map[string]struct {
				Mean, Lo, Hi float64
				PerSeed      []float64 `json:"per_seed"`
			} `json:"figures"`
		} `json:"settings"`
		Ranking []struct {
			Better, Worse   string
			Wins, Seeds     int
			Distinguishable bool
			Disjoint        bool `json:"ci_disjoint"`
		} `json:"ranking"`
	} `json:"seeds"`
}

func decodeSeeds(t *testing.T, out string) seedsReport {
	t.Helper()
	var r seedsReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%.500s", err, out)
	}
	return r
}

// The published race on many seeds: means with intervals and the
// distinguishability line in the table.
func TestSimSeedsTable(t *testing.T) {
	out, errOut, code := lab(t, "sim", "rr-slow", "--seeds", "6", "--compare", "round-robin,p2c")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"lab rr-slow (sim, 6 seeds: 1-6, 20s)", "95% confidence interval", "Student's t",
		"p2c's p99 < round-robin's", "(6/6 seeds lower", "95% CIs disjoint", "share of attempts per server (mean of 6 seeds)"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "lab sim rr-slow: 12 runs in") {
		t.Errorf("no summary line on stderr: %q", errOut)
	}
}

// Seed i runs the lab with seed: i, so each per-seed value is exactly what
// a single run with --seed i reports, and the report's runs are those of
// the first seed: the existing fields keep their meaning.
func TestSimSeedsPerSeedValuesAreSingleRuns(t *testing.T) {
	out, _ := labEnv(t, nil, "sim", "rr-slow", "--seeds", "4,7", "--compare", "round-robin,p2c", "--duration", "8s", "--json")
	r := decodeSeeds(t, out)
	if !slices.Equal(r.Seeds.List, []uint64{4, 7}) || r.Seed != 4 || r.Seeds.Method != "student-t" {
		t.Fatalf("seeds %v, seed %d, method %q", r.Seeds.List, r.Seed, r.Seeds.Method)
	}
	for i, seed := range []string{"4", "7"} {
		single, _ := labEnv(t, nil, "sim", "rr-slow", "--seed", seed, "--compare", "round-robin,p2c", "--duration", "8s", "--json")
		var one struct {
			Runs []json.RawMessage `json:"runs"`
		}
		if err := json.Unmarshal([]byte(single), &one); err != nil {
			t.Fatal(err)
		}
		if i == 0 && !reflect.DeepEqual(one.Runs, r.Runs) {
			t.Error("the report's runs are not the first seed's runs")
		}
		for j, s := range r.Seeds.Settings {
			var run struct {
				Name    string
				Latency struct{ P99 float64 } `json:"latency_ms"`
			}
			json.Unmarshal(one.Runs[j], &run)
			if run.Name != s.Name || s.Figures["p99"].PerSeed[i] != run.Latency.P99 {
				t.Errorf("seed %s, %s: per-seed p99 %v, a single run says %s %v", seed, s.Name,
					s.Figures["p99"].PerSeed[i], run.Name, run.Latency.P99)
			}
		}
	}
}

// Parallelism does not change results: the JSON is byte-identical on one
// worker and on several, and from one run to the next.
func TestSimSeedsByteIdenticalAcrossWorkers(t *testing.T) {
	args := []string{"sim", "rr-slow", "--seeds", "1-8", "--compare", "round-robin,p2c,least-outstanding", "--duration", "10s", "--json"}
	one, _ := labEnv(t, []string{"GOMAXPROCS=1"}, args...)
	many, errMany := labEnv(t, []string{"GOMAXPROCS=4"}, args...)
	again, _ := labEnv(t, []string{"GOMAXPROCS=4"}, args...)
	if one != many || many != again {
		t.Fatal("the JSON differs between runs or numbers of workers")
	}
	if !strings.Contains(errMany, "on 4 workers") {
		t.Errorf("GOMAXPROCS=4 should run 4 workers: %q", errMany)
	}
	r := decodeSeeds(t, one)
	if len(r.Seeds.Settings) != 3 || len(r.Seeds.Ranking) != 2 {
		t.Fatalf("%d settings, %d verdicts", len(r.Seeds.Settings), len(r.Seeds.Ranking))
	}
	for _, s := range r.Seeds.Settings {
		p99 := s.Figures["p99"]
		if len(p99.PerSeed) != 8 || !(p99.Lo < p99.Mean && p99.Mean < p99.Hi) {
			t.Errorf("%s: p99 %+v", s.Name, p99)
		}
	}
	// round-robin is last by far on every seed of this scenario.
	last := r.Seeds.Ranking[1]
	if last.Worse != "round-robin" || !last.Distinguishable || !last.Disjoint || last.Wins != 8 || last.Seeds != 8 {
		t.Errorf("last verdict %+v", last)
	}
}

func TestSeedsBadInputExits2(t *testing.T) {
	cases := map[string][]string{
		"at least 2":     {"sim", "rr-slow", "--seeds", "0"},
		"range 5-3":      {"sim", "rr-slow", "--seeds", "5-3"},
		"given twice":    {"sim", "rr-slow", "--seeds", "1,2,1"},
		"not a seed":     {"sim", "rr-slow", "--seeds", "a"},
		"--seed and":     {"sim", "rr-slow", "--seeds", "3", "--seed", "2"},
		"lab sweep":      {"sim", "rr-slow", "--seeds", "3", "--plot", "x.svg"},
		"at most 10000":  {"run", "rr-slow", "--seeds", "20000", "--dashboard", ""},
		"range 9-1 is e": {"run", "rr-slow", "--seeds", "9-1", "--dashboard", ""},
	}
	for want, args := range cases {
		out, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, want) || out != "" || strings.Contains(errOut, "process logs") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q before anything runs", args, code, out, errOut, want)
		}
	}
}

// lab run --seeds runs each seed live, one after another, and reports
// intervals over them with mode live.
func TestRunSeedsLive(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: starts real processes (-short)")
	}
	path := filepath.Join(t.TempDir(), "tiny.yaml")
	os.WriteFile(path, []byte("name: tiny\nduration: 1500ms\nclients: {rate: 100, work: {mean: 5ms}}\nservers: [{count: 2}]\n"), 0o644)
	out, errOut, code := lab(t, "run", path, "--seeds", "2", "--compare", "p2c", "--dashboard", "", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"lab run tiny: seed 1 (1 of 2), about", "lab run tiny: seed 2 (2 of 2)", "lab run tiny: 2 live runs in"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	r := decodeSeeds(t, out)
	if !slices.Equal(r.Seeds.List, []uint64{1, 2}) || len(r.Seeds.Settings) != 1 || !strings.Contains(out, `"mode": "live"`) {
		t.Fatalf("live seeds report: %.600s", out)
	}
	for _, s := range r.Seeds.Settings {
		if f := s.Figures["requests"]; len(f.PerSeed) != 2 || f.PerSeed[0] < 100 || f.PerSeed[1] < 100 {
			t.Errorf("%s: requests per seed %v, want about 150 each", s.Name, f.PerSeed)
		}
	}
}
