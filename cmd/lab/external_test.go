package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// --balancer is refused before anything starts (exit 2) when it names no
// kind, when a setting named by --compare is an algorithm the proxy lacks,
// or when the proxy is not installed; lab up takes one kind only.
func TestBalancerFlagRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "rr-slow", "--balancer", "haproxi"}, `--balancer: "haproxi" is not a balancer kind; did you mean haproxy? (kinds: lb, haproxy, nginx, caddy, command)`},
		{[]string{"run", "rr-slow", "--balancer", "lb,lb"}, "--balancer: lb is named twice"},
		{[]string{"run", "rr-slow", "--compare", "least-latency", "--balancer", "haproxy"}, `kind haproxy has no "least-latency" (the nearest it has: least-outstanding, balance leastconn); the algorithms it maps: round-robin, weighted-round-robin, random, least-outstanding, p2c, ring-hash, ring-hash-bounded`},
		{[]string{"run", "retry-storm", "--compare", "drop-expired", "--balancer", "nginx"}, "servers.drop_expired: kind nginx cannot honour it: the proxies do not pass balancers.timeout on"},
		{[]string{"run", "gray-failure", "--compare", "outlier", "--balancer", "nginx"}, "balancers.outlier.enabled: kind nginx cannot honour it"},
		{[]string{"up", "rr-slow", "--balancer", "lb,haproxy"}, "--balancer: one of lb, haproxy, nginx, caddy, command"},
	} {
		_, errOut, code := lab(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("lab %s: exit %d, %s\nwant exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}

// Without the proxy's program on PATH, lab run says which Debian package
// to install, before anything starts.
func TestBalancerMissingProxy(t *testing.T) {
	cmd := exec.Command(labBin, "run", "rr-slow", "--compare", "round-robin", "--balancer", "caddy", "--dashboard", "")
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "balancers.kind caddy: Caddy is not installed (caddy is not on PATH): apt-get install -y caddy") {
		t.Errorf("exit %v: %s", err, out)
	}
}

// A setting a kind cannot run is left out, with a note, when it came from
// the lab's compare list rather than from --compare.
func TestWithKindsLeavesOut(t *testing.T) {
	l, err := loadLab("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	var note strings.Builder
	got, err := withKinds(l, l.Compare, []string{"lb", "nginx"}, false, &note)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	// rr-slow's compare: round-robin, random, least-outstanding, p2c, p2c-peak-ewma, least-latency
	want := "round-robin@lb round-robin@nginx random@lb random@nginx least-outstanding@lb least-outstanding@nginx p2c@lb p2c@nginx p2c-peak-ewma@lb least-latency@lb"
	if strings.Join(names, " ") != want {
		t.Errorf("settings %s\nwant %s", strings.Join(names, " "), want)
	}
	if !strings.Contains(note.String(), "--balancer nginx: setting p2c-peak-ewma left out") || !strings.Contains(note.String(), "setting least-latency left out") {
		t.Errorf("note: %s", note.String())
	}
}
