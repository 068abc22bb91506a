package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCostRefusedBeforeAnythingRuns: lab sim, lab run, lab up and lab sweep
// (at every point) refuse
// a lab over the cost budget with exit 2, naming the product and
// --max-cost, before starting a process or a simulation (each returns at
// once: nothing is listening and no report is printed); --max-cost lets
// a moderately big lab through.
func TestCostRefusedBeforeAnythingRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	caches := write("caches.yaml", "duration: 10ms\nclients: {keys: 1000000}\nservers: [{count: 10000, cache: {size: 1000000}}]\n")
	ring := write("ring.yaml", "duration: 10ms\nbalancers: {algorithm: ring-hash, vnodes: 10000}\nservers: [{count: 10000}]\n")
	maglev := write("maglev.yaml", "duration: 10ms\nclients: {count: 1000000, algorithm: maglev}\n")
	for _, c := range []struct {
		args    []string
		product string
	}{
		{[]string{"sim", caches}, "servers[0]: 10000 servers x 1000000 cache entries"},
		{[]string{"sim", ring}, "x 10000 servers x 10000 balancers.vnodes = 1e+08 ring points"},
		{[]string{"sim", maglev}, "1000000 balancers (clients.count: client-side, one per client) x a maglev table"},
		{[]string{"run", maglev, "--max-processes", "20000", "--dashboard", ""}, "x a maglev table"},
		{[]string{"up", caches, "--max-processes", "20000", "--listen", "127.0.0.1:0", "--lb", "127.0.0.1:0"}, "10000 servers x 1000000 cache entries"},
		{[]string{"sim", caches, "--max-cost", "0"}, "--max-cost: must be a finite number over 0"},
		{[]string{"sweep", write("sweep.yaml", "duration: 10ms\nbalancers: {algorithm: ring-hash}\nservers: [{count: 10000}]\n"), "--vary", "balancers.vnodes=100,10000"},
			"at balancers.vnodes=10000: the lab"},
	} {
		out, errOut, code := lab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.product) || out != "" {
			t.Errorf("lab %s: exit %d, stdout %q, stderr %q; want exit 2 naming %q", strings.Join(c.args, " "), code, out, errOut, c.product)
		}
		if !strings.Contains(errOut, "--max-cost") {
			t.Errorf("lab %s: the refusal names no flag: %s", strings.Join(c.args, " "), errOut)
		}
	}
	mid := write("mid.yaml", "duration: 100ms\nclients: {rate: 10, keys: 100000}\nservers: [{count: 1000, cache: {size: 100000}}]\n") // 1e8 entries: about 3 GiB at most
	if _, errOut, code := lab(t, "sim", mid); code != 2 || !strings.Contains(errOut, "1000 servers x 100000 cache entries") {
		t.Fatalf("default budget: exit %d %s", code, errOut)
	}
	if out, errOut, code := lab(t, "sim", mid, "--max-cost", "4", "--json"); code != 0 || !strings.Contains(out, `"requests"`) {
		t.Fatalf("--max-cost 4: exit %d %s", code, errOut)
	}
}

// TestMaxCostLargeFactors: from --max-cost 8e7 the budget's CPU passed
// what a time.Duration holds and every lab was refused "over the budget
// of -2562047h47m16.854775808s"; a large factor now saturates and the lab
// runs, in the simulator and live (lab run of a 2 s lab), and NaN and
// inf are refused with exit 2 and a message naming the flag.
func TestMaxCostLargeFactors(t *testing.T) {
	for _, f := range []string{"8e7", "1e9", "1e300"} {
		if out, errOut, code := lab(t, "sim", "rr-slow", "--compare", "p2c", "--max-cost", f, "--json"); code != 0 || !strings.Contains(out, `"requests"`) {
			t.Errorf("lab sim --max-cost %s: exit %d, stderr %s", f, code, errOut)
		}
	}
	for _, f := range []string{"inf", "+Inf", "NaN", "-inf"} {
		if _, errOut, code := lab(t, "sim", "rr-slow", "--max-cost", f); code != 2 || !strings.Contains(errOut, "--max-cost: must be a finite number over 0") {
			t.Errorf("lab sim --max-cost %s: exit %d, stderr %s; want exit 2 naming --max-cost", f, code, errOut)
		}
	}
	out, errOut, code := lab(t, "run", tinyLab(t), "--max-cost", "1e9", "--json", "--dashboard", "", "--logs", filepath.Join(t.TempDir(), "processes.log"))
	if code != 0 || !strings.Contains(out, `"requests"`) {
		t.Errorf("lab run --max-cost 1e9: exit %d, stderr %s", code, errOut)
	}
}
