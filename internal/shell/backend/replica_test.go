package backend

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/shell/wire"
)

// A replica (Config.Server) runs the settings of the lab server it emulates
// under its own name: in its answers, its health, its state, and its
// random draws (two replicas of one server do not fail the same requests).
func TestReplicaTakesItsOwnName(t *testing.T) {
	lab := labWith(t, "servers[0].count", "2", "servers[0].workers", "3", "servers[0].errors", "0.5", "network.hop", "0s")
	start := func(name string) *memNet {
		_, n := startMemWith(t, Config{Lab: lab, Name: name, Server: "s2"})
		return n
	}
	a, b := start("backend-0"), start("backend-1")
	dial := func(n *memNet, addr string) func() (net.Conn, error) {
		return func() (net.Conn, error) { return n.dial(addr) }
	}

	var st State
	if r := do(dial(a, "admin"), "GET", "/admin/state", ""); r.err != nil || json.Unmarshal(r.body, &st) != nil {
		t.Fatalf("state: %v %s", r.err, r.body)
	}
	if st.Name != "backend-0" || st.Workers != 3 {
		t.Errorf("state: name %q, %d workers; want backend-0 with s2's 3", st.Name, st.Workers)
	}
	if r := do(dial(a, "admin"), "GET", "/healthz", ""); !strings.Contains(string(r.body), `"server":"backend-0"`) {
		t.Errorf("admin /healthz: %s", r.body)
	}
	same := 0
	for id := range 40 {
		hdr := []string{wire.HRequest, strconv.Itoa(id + 1), wire.HWork, "0s"}
		ra, rb := do(dial(a, "data"), "GET", "/x", "", hdr...), do(dial(b, "data"), "GET", "/x", "", hdr...)
		if ra.err != nil || rb.err != nil {
			t.Fatalf("request %d: %v %v", id, ra.err, rb.err)
		}
		if ra.header(wire.HServer) != "backend-0" || rb.header(wire.HServer) != "backend-1" {
			t.Fatalf("X-Lab-Server %q and %q", ra.header(wire.HServer), rb.header(wire.HServer))
		}
		if ra.code == rb.code {
			same++
		}
	}
	if same == 40 {
		t.Errorf("two replicas of s2 (errors 0.5) answered all 40 requests alike: their draws are not their own")
	}
}
