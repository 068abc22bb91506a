package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/testbin"
	"github.com/lblab/lblab/scenarios"
)

var labBin string

func TestMain(m *testing.M) { os.Exit(testbin.Run(m, "github.com/lblab/lblab/cmd/lab", &labBin)) }

// lab runs the built binary and returns stdout, stderr and the exit code.
// labCommandLimit bounds one lab command of these tests.
const labCommandLimit = 5 * time.Minute

func lab(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	// Bounded: a command that should have been refused and runs instead
	// (lab up runs until stopped) fails the test rather than wedging the
	// suite; it is interrupted, as Ctrl-C would, then killed.
	ctx, cancel := context.WithTimeout(context.Background(), labCommandLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, labBin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0
	case ctx.Err() != nil:
		t.Fatalf("lab %v ran past %v: %v\n%s", args, labCommandLimit, err, errOut.String())
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	}
	t.Fatal(err)
	return "", "", -1
}

func TestSimCompareTable(t *testing.T) {
	out, errOut, code := lab(t, "sim", "rr-slow", "--compare", "round-robin,least-outstanding,p2c")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"lab rr-slow (sim, seed 1, 20s)", "p99", "round-robin", "least-outstanding", "p2c", "share of attempts per server", "s5"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "random") {
		t.Errorf("a setting that was not asked for is in the table:\n%s", out)
	}
}

func TestSimJSONSchema(t *testing.T) {
	out, errOut, code := lab(t, "sim", "rr-slow", "--compare", "p2c", "--json", "--duration", "8s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"mode", "lab", "seed", "duration_s", "runs"} {
		if _, ok := rep[k]; !ok {
			t.Errorf("report lacks %q", k)
		}
	}
	if rep["mode"] != "sim" || rep["duration_s"].(float64) != 8 {
		t.Errorf("mode %v duration %v", rep["mode"], rep["duration_s"])
	}
	run := rep["runs"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "algorithm", "requests", "succeeded", "failed", "goodput", "attempts",
		"attempts_per_request", "timeouts", "rejected", "errors", "retries", "hedges", "wasted", "latency_ms",
		"servers", "keys_moved", "series"} {
		if _, ok := run[k]; !ok {
			t.Errorf("run lacks %q", k)
		}
	}
	lat := run["latency_ms"].(map[string]any)
	for _, k := range []string{"p50", "p95", "p99", "p999", "mean", "max"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("latency_ms lacks %q", k)
		}
	}
	srv := run["servers"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "sent", "completed", "share", "cache_hit_ratio", "max_queue"} {
		if _, ok := srv[k]; !ok {
			t.Errorf("servers[0] lacks %q", k)
		}
	}
}

func TestSimSeedChangesReport(t *testing.T) {
	a, _, _ := lab(t, "sim", "playground", "--json", "--duration", "3s")
	b, _, _ := lab(t, "sim", "playground", "--json", "--duration", "3s")
	c, _, _ := lab(t, "sim", "playground", "--json", "--duration", "3s", "--seed", "9")
	if a != b {
		t.Error("the same seed gave different output")
	}
	if a == c {
		t.Error("another seed gave the same output")
	}
}

func TestSimMisspelledKeyExits2(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lab.yaml")
	os.WriteFile(path, []byte("name: typo\nclients:\n  rate: 100\n  retires: 3\n"), 0o644)
	_, errOut, code := lab(t, "sim", path)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut, path+":4:") || !strings.Contains(errOut, "retires") || !strings.Contains(errOut, "retries") {
		t.Errorf("error should name file:line, the bad key and the right one: %s", errOut)
	}
}

func TestSimBadInputExits2(t *testing.T) {
	cases := [][]string{
		{"sim", "rr-slow", "--compare", "nope"},
		{"sim", "no-such-scenario"},
		{"sim", "missing/file.yaml"},
		{"sim", "rr-slow", "--duration", "-5s"},
		{"sim", "rr-slow", "--bogus"},
	}
	for _, args := range cases {
		if _, errOut, code := lab(t, args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
}

func TestScenariosListsAll(t *testing.T) {
	out, _, code := lab(t, "scenarios")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != len(scenarios.Names()) {
		t.Fatalf("exit %d, %d lines:\n%s", code, len(lines), out)
	}
	for _, l := range lines {
		if len(strings.Fields(l)) < 3 {
			t.Errorf("scenario line without a description: %q", l)
		}
	}
}

func TestAlgorithmsListsEveryOne(t *testing.T) {
	out, _, _ := lab(t, "algorithms")
	algos, features, _ := strings.Cut(strings.TrimSpace(out), "\n\n")
	if n := len(strings.Split(algos, "\n")); n != len(policy.Algorithms()) {
		t.Fatalf("%d algorithms:\n%s", n, out)
	}
	for _, want := range []string{"least-response-time", "wrr-orca", "balancers.slow_start", "balancers.outlier", "clients.aperture"} {
		if !strings.Contains(out, want) {
			t.Errorf("lab algorithms does not name %s:\n%s", want, out)
		}
	}
	if n := len(strings.Split(features, "\n")); n != 4 {
		t.Errorf("settings part has %d lines, want a heading and 3:\n%s", n, features)
	}
}

// The lab file in the README runs as shown.
func TestReadmeLabFileRuns(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "```yaml\nname: my-lab")
	if start < 0 {
		t.Fatal("the README's example lab file is gone")
	}
	body := text[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	path := filepath.Join(t.TempDir(), "my-lab.yaml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := lab(t, "sim", path)
	if code != 0 || !strings.Contains(out, "lab my-lab (sim, seed 1, 30s)") {
		t.Fatalf("exit %d: %s%s", code, errOut, out)
	}
}

// Every flag of lab's commands and of the three daemons is named somewhere in
// the README or docs/, so a new flag cannot land undocumented.
func TestEveryFlagDocumented(t *testing.T) {
	var docs strings.Builder
	files, _ := filepath.Glob("../../docs/*.md")
	for _, f := range append(files, "../../README.md") {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs.Write(data)
	}
	// cobra lists "  -v, --verbose", the daemons' flag package "  -addr HOST:PORT".
	flag := regexp.MustCompile(`(?m)^\s+(?:-\w, )?--?([a-z][a-z-]+)`)
	for _, cmd := range []string{"run", "up", "sim", "watch", "sweep", "chaos", "dashboard", "torture", "backend", "lb", "loadgen", "probe"} {
		out, errOut, _ := lab(t, cmd, "--help")
		found := flag.FindAllStringSubmatch(out+errOut, -1)
		if len(found) < 2 {
			t.Fatalf("lab %s --help lists no flags:\n%s%s", cmd, out, errOut)
		}
		for _, m := range found {
			documented := regexp.MustCompile(`--` + m[1] + `\b`).MatchString(docs.String())
			if m[1] != "help" && !documented {
				t.Errorf("lab %s: --%s is in --help but in neither the README nor docs/", cmd, m[1])
			}
		}
	}
}
