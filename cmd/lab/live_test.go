package main

import (
	"net"
	"os"
	"path/filepath"
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

// A lab that would start more processes than --max-processes is refused
// before any process starts: exit 2, a reason naming the count, the flag
// and lab sim, and no process log written. Balancers count: a lab of
// 1,000 balancers started 316 lb processes (7 GB) in 5 s when only the
// servers were counted.
func TestLiveRefusesTooLargeFleet(t *testing.T) {
	dir := t.TempDir()
	lbs := filepath.Join(dir, "lbs.yaml")
	if err := os.WriteFile(lbs, []byte("name: lbs\nbalancers: {count: 1000}\nservers: [{count: 2}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "balls-bins", "--dashboard", ""}, "balls-bins would start 1002 processes (1000 servers, 1 lb (balancers.count), 1 loadgen)"}, // against the default 50
		{[]string{"up", "balls-bins", "--listen", "127.0.0.1:0"}, "at most 50; --max-processes raises it"},                                            // the same for lab up
		{[]string{"run", "rr-slow", "--max-processes", "6", "--dashboard", ""}, "rr-slow would start 7 processes (5 servers, 1 lb (balancers.count), 1 loadgen)"},
		{[]string{"run", lbs, "--dashboard", ""}, "lbs would start 1003 processes (2 servers, 1000 lbs (balancers.count), 1 loadgen)"},
		{[]string{"up", lbs, "--listen", "127.0.0.1:0"}, "1000 lbs"},
		{[]string{"sweep", lbs, "--vary", "servers.count=1,2", "--live", "--dashboard", ""}, "1000 lbs"},
	}
	for _, c := range cases {
		_, errOut, code := lab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "too many processes for a live run") ||
			!strings.Contains(errOut, "try lab sim") || strings.Contains(errOut, "process logs") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
	if _, errOut, code := lab(t, "run", "rr-slow", "--max-processes", "0"); code != 2 || !strings.Contains(errOut, "--max-processes: must be at least 1") {
		t.Errorf("--max-processes 0: exit %d, stderr %q", code, errOut)
	}
}

// lab chaos checks the action itself (exit 2, the list of actions) and says
// when no lab is listening (exit 1, how to start or find one).
func TestChaosErrors(t *testing.T) {
	if _, errOut, code := lab(t, "chaos", "bogus"); code != 2 || !strings.Contains(errOut, `unknown action "bogus"`) ||
		!strings.Contains(errOut, "add-server") {
		t.Errorf("unknown action: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := lab(t, "chaos", "slow", "s3", "speed=abc"); code != 2 || !strings.Contains(errOut, `speed: "abc" is not a number`) ||
		strings.Contains(errOut, "strconv") {
		t.Errorf("speed=abc: exit %d, stderr %q", code, errOut)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a port nothing listens on
	if _, errOut, code := lab(t, "chaos", "kill", "s2", "--lab-url", addr); code != 1 ||
		!strings.Contains(errOut, "no lab is running at "+addr) || !strings.Contains(errOut, "lab up") {
		t.Errorf("no lab: exit %d, stderr %q", code, errOut)
	}
}

// Access and restart flags are checked before anything starts: a
// controller on a non-loopback address without a token, any Host name
// without a token, a short token, an unknown restart policy: exit 2.
func TestLiveAccessFlagsExit2(t *testing.T) {
	t.Setenv("LBLAB_TOKEN", "")
	cases := map[string][]string{
		"needs a token":        {"up", "--listen", "0.0.0.0:0"},
		"--dashboard 0.0.0.0:": {"run", "rr-slow", "--dashboard", "0.0.0.0:0"},
		"--allow-host *":       {"up", "--allow-host", "*", "--listen", "127.0.0.1:0"},
		"16 to 256 characters": {"chaos", "kill", "s1", "--token", "short"},
		"--restart":            {"up", "--restart", "always", "--listen", "127.0.0.1:0"},
		"--listen 0.0.0.0:0":   {"dashboard", "--lb", "lb1=127.0.0.1:9080", "--backends", "s1=127.0.0.1:9081", "--loadgen", "127.0.0.1:9090", "--listen", "0.0.0.0:0", "--check-config"},
	}
	for want, args := range cases {
		if _, errOut, code := lab(t, args...); code != 2 || !strings.Contains(errOut, want) || strings.Contains(errOut, "process logs") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a reason mentioning %q", args, code, errOut, want)
		}
	}
}

// lab chaos --for: a time box > 0, given once.
func TestChaosForErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"chaos", "slow", "s1", "speed=0.5", "--for", "0s"}, "--for: must be > 0"},
		{[]string{"chaos", "slow", "s1", "speed=0.5", "for=5s", "--for", "5s"}, "give the time box once"},
		{[]string{"chaos", "slow", "s1", "speed=0.5", "--for", "soon"}, "invalid argument"},
	} {
		if _, errOut, code := lab(t, c.args...); code != 2 || !strings.Contains(errOut, c.says) {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying %q", c.args, code, errOut, c.says)
		}
	}
}
