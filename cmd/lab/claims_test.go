package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lblab/lblab/scenarios"
)

// lab sim --claims checks every claim of the narration on each seed.
func TestSimClaimsOnSeeds(t *testing.T) {
	out, errOut, code := lab(t, "sim", "breaker", "--claims", "--seeds", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, c := range scenarios.Claims("breaker") {
		if !strings.Contains(out, string(c.Phase)+" ") || !strings.Contains(out, "holds on 2/2: "+c.Says) {
			t.Errorf("no verdict for %q:\n%s", c.Says, out)
		}
	}
}

// lab claims checks a saved report: every claim holds on the simulator's
// own; a report whose series says s2 failed before the trigger fails the
// claim about before the trigger (exit 1); one without series cannot tell.
func TestClaimsOnASavedReport(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := lab(t, "sim", "breaker", "--json", "--series")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	res, errOut, code := lab(t, "claims", "breaker", good)
	if code != 0 || strings.Contains(res, "FAILS") || !strings.Contains(res, "before     holds: At 5 s s2 starts answering") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, res)
	}

	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	bins := rep["runs"].([]any)[0].(map[string]any)["series"].([]any)
	early := bins[4].(map[string]any) // 1 s to 1.25 s
	early["errors"], early["failed"] = float64(5), early["succeeded"]
	bad := filepath.Join(dir, "bad.json")
	writeJSON(t, bad, rep)
	res, _, code = lab(t, "claims", "breaker", bad)
	if code != 1 || !strings.Contains(res, "before     FAILS: At 5 s s2 starts answering") || !strings.Contains(res, "why: no-breaker: a bin between 0 and 5 s has goodput 0.500") {
		t.Errorf("exit %d, want 1 and the claim before the trigger failing:\n%s", code, res)
	}

	for _, r := range rep["runs"].([]any) {
		delete(r.(map[string]any), "series")
	}
	bare := filepath.Join(dir, "bare.json")
	writeJSON(t, bare, rep)
	res, _, code = lab(t, "claims", "breaker", bare)
	if code != 0 || !strings.Contains(res, "before     unmeasured:") || !strings.Contains(res, "no series (run with --series)") {
		t.Errorf("exit %d, want 0 with the claims on the series unmeasured:\n%s", code, res)
	}
}

func TestClaimsUsageErrors(t *testing.T) {
	dir := t.TempDir()
	out, _, _ := lab(t, "sim", "breaker", "--json")
	rep := filepath.Join(dir, "breaker.json")
	if err := os.WriteFile(rep, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.json")
	if err := os.WriteFile(junk, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(mine, []byte("name: mine\nduration: 2s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"claims", "rr-slow", rep}, `is a report of lab "breaker", not of "rr-slow"`},
		{[]string{"claims", "breaker", junk}, "not a JSON report"},
		{[]string{"claims", "breaker", filepath.Join(dir, "none.json")}, "no such file"},
		{[]string{"sim", mine, "--claims"}, `"mine" is not a built-in scenario with claims`},
		{[]string{"sim", "breaker", "--claims", "--json"}, "--claims prints the narration's claims, not the report"},
	} {
		_, errOut, code := lab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("lab %v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
