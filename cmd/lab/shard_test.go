package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sweep run as 3 shards and merged prints the same bytes as the sweep
// run whole: the table, the JSON, the CSV and the plot. Bad merges (a slice
// missing or twice, a part of another sweep) are refused with exit 2.
func TestSweepShardsMergeToTheWholeSweep(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	sweep := []string{"sweep", "rr-slow", "--vary", "clients.rate=200:400:100", "--vary", "balancers.timeout=100ms,1s",
		"--compare", "round-robin,p2c", "--seeds", "3", "--duration", "6s"}
	outputs := func(prefix string, args ...string) map[string][]byte {
		t.Helper()
		table, errOut, code := lab(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		js, errOut, code := lab(t, append(args, "--json", "--csv", at(prefix+".csv"), "--plot", at(prefix+".svg"))...)
		if code != 0 {
			t.Fatalf("%v --json: exit %d: %s", args, code, errOut)
		}
		got := map[string][]byte{"table": []byte(table), "json": []byte(js)}
		for _, ext := range []string{"csv", "svg"} {
			data, err := os.ReadFile(at(prefix + "." + ext))
			if err != nil {
				t.Fatal(err)
			}
			got[ext] = data
		}
		return got
	}
	whole := outputs("whole", sweep...)
	var parts []string
	for i := range 3 {
		part := at("part-" + string(rune('0'+i)) + ".json")
		if _, errOut, code := lab(t, append(sweep, "--shard", string(rune('0'+i))+"/3", "--part", part)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
		parts = append(parts, part)
	}
	merged := outputs("merged", "sweep", "merge", parts[2], parts[0], parts[1])
	for _, what := range []string{"table", "json", "csv", "svg"} {
		if !bytes.Equal(whole[what], merged[what]) {
			t.Errorf("the merged %s differs from the whole sweep's:\n%s\n---\n%s", what, whole[what], merged[what])
		}
	}
	// the parts in one file among log lines, as kubectl logs of the Job's pods gives them
	var logs bytes.Buffer
	for _, p := range parts {
		data, _ := os.ReadFile(p)
		logs.WriteString("lab sweep rr-slow: shard n/3: a progress line\n")
		logs.Write(data)
	}
	os.WriteFile(at("parts.log"), logs.Bytes(), 0o644)
	if table, errOut, code := lab(t, "sweep", "merge", at("parts.log")); code != 0 || table != string(whole["table"]) {
		t.Errorf("merge of one log file: exit %d, %s\n%s", code, errOut, table)
	}
	if len(whole["json"]) < 1000 || !strings.Contains(string(whole["table"]), "p2c") {
		t.Fatalf("the sweep printed too little:\n%s", whole["table"])
	}

	// a part of another sweep (another seed list), a slice twice, one missing
	other := at("other.json")
	if _, errOut, code := lab(t, append(append([]string{}, sweep[:len(sweep)-4]...), "--seeds", "2", "--duration", "6s", "--shard", "0/3", "--part", other)...); code != 0 {
		t.Fatalf("other sweep: exit %d: %s", code, errOut)
	}
	for want, args := range map[string][]string{
		"a part of another sweep":          {"sweep", "merge", parts[0], other},
		"both hold slice 0/3":              {"sweep", "merge", parts[0], parts[0], parts[1]},
		"missing slices 2/3":               {"sweep", "merge", parts[0], parts[1]},
		"not a sweep part, and holds none": {"sweep", "merge", at("whole.csv")},
	} {
		if _, errOut, code := lab(t, args...); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying %q", args, code, errOut, want)
		}
	}
	for _, bad := range []string{"3/3", "-1/3", "1", "a/b", "0/0"} {
		if _, errOut, code := lab(t, append(sweep, "--shard", bad)...); code != 2 || !strings.Contains(errOut, "--shard "+bad) {
			t.Errorf("--shard %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
}
