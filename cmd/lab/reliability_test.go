package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lab torture prints the counts line and exits 0 when every lab passes;
// bad flags exit 2.
func TestTortureCommand(t *testing.T) {
	out, errOut, code := lab(t, "torture", "--runs", "4", "--seed", "11", "--workers", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, errOut, out)
	}
	if !strings.HasPrefix(out, "torture: 4 labs, ") || !strings.Contains(out, " 0 failures in ") || !strings.Contains(out, "(seeds 11..14, 2 workers)") {
		t.Errorf("output:\n%s", out)
	}
	out, _, code = lab(t, "torture", "--runs", "1", "--seed", "11", "--show")
	if code != 0 || !strings.Contains(out, "name: torture-11\nseed: 11\n") {
		t.Errorf("--show should print the lab (exit %d):\n%s", code, out)
	}
	for _, bad := range [][]string{{"--runs", "0"}, {"--workers", "0"}, {"--dir", "/no/such/dir"}, {"--runs", "x"},
		{"--duration", "2s"}, {"--live", "--duration", "0s"}, {"--live", "--runs", "0"}} {
		if _, errOut, code := lab(t, append([]string{"torture"}, bad...)...); code != 2 {
			t.Errorf("lab torture %v: exit %d, want 2: %s", bad, code, errOut)
		}
	}
}

// lab torture --live runs a lab on real processes and prints its counts.
func TestTortureLiveCommand(t *testing.T) {
	out, errOut, code := lab(t, "torture", "--live", "--runs", "1", "--seed", "2", "--duration", "2s", "--dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, errOut, out)
	}
	if !strings.HasPrefix(out, "torture --live: 1 labs, ") || !strings.Contains(out, " 0 failures in ") ||
		!strings.Contains(errOut, "torture --live: lab 1 of 1, seed 2, ") {
		t.Errorf("output:\n%s\nprogress:\n%s", out, errOut)
	}
}

// lab sim --max-pending stops a flood with the queue and the cause (exit
// 1); a bound below 1 is a usage error.
func TestSimMaxPending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flood.yaml")
	flood := "duration: 1m\nclients: {rate: 1000000}\nservers: [{count: 1, speed: 0.1}]\n"
	if err := os.WriteFile(path, []byte(flood), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := lab(t, "sim", path, "--max-pending", "20000")
	if code != 1 || !strings.Contains(errOut, "memory guard stopped the run") || !strings.Contains(errOut, "arrivals faster than service") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := lab(t, "sim", path, "--max-pending", "0"); code != 2 || !strings.Contains(errOut, "--max-pending") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
