package main

import (
	"strings"
	"testing"
)

// lab dashboard --check-config: exit 0 with a summary for good flags, 2
// with a reason for bad ones.
func TestDashboardCheckConfig(t *testing.T) {
	ok := []string{"dashboard", "--lb", "lb1=127.0.0.1:9080", "--backends", "s1=127.0.0.1:9081,s2=127.0.0.1:9082",
		"--loadgen", "127.0.0.1:9090", "--check-config"}
	out, errOut, code := lab(t, ok...)
	if code != 0 || !strings.Contains(out, "configuration ok: 1 balancers, 2 backends") {
		t.Fatalf("good flags: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	bad := map[string][]string{
		"--loadgen": {"dashboard", "--lb", "lb1=127.0.0.1:9080", "--backends", "s1=127.0.0.1:9081", "--check-config"},
		"--lb":      {"dashboard", "--lb", "lb1", "--backends", "s1=127.0.0.1:9081", "--loadgen", "127.0.0.1:9090", "--check-config"},
		"port":      {"dashboard", "--lb", "lb1=127.0.0.1:99999", "--backends", "s1=127.0.0.1:9081", "--loadgen", "127.0.0.1:9090", "--check-config"},
		"fleet order": {"dashboard", "--lb", "lb1=127.0.0.1:9080", "--backends", "s2=127.0.0.1:9081", "--loadgen", "127.0.0.1:9090",
			"--check-config"},
		"twice": {"dashboard", "--lb", "lb1=127.0.0.1:9080", "--backends", "a=127.0.0.1:9081,a=127.0.0.1:9082",
			"--loadgen", "127.0.0.1:9090", "--check-config"},
	}
	for want, args := range bad {
		if _, errOut, code := lab(t, args...); code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a reason mentioning %q", args, code, errOut, want)
		}
	}
}

// A lab with more servers than --max-servers is refused before any process
// starts: exit 2, a reason naming lab sim, and no process log written.
func TestLiveRefusesTooLargeFleet(t *testing.T) {
	cases := [][]string{
		{"run", "balls-bins", "--dashboard", ""},                    // 1000 servers against the default 40
		{"up", "balls-bins", "--listen", "127.0.0.1:0"},             // the same for lab up
		{"run", "rr-slow", "--max-servers", "4", "--dashboard", ""}, // five servers
	}
	for _, args := range cases {
		_, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, "too many processes for a live run") ||
			!strings.Contains(errOut, "try lab sim") || strings.Contains(errOut, "process logs") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
	if _, errOut, code := lab(t, "run", "rr-slow", "--max-servers", "0"); code != 2 || !strings.Contains(errOut, "--max-servers") {
		t.Errorf("--max-servers 0: exit %d, stderr %q", code, errOut)
	}
}
