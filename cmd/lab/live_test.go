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
