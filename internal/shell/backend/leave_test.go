package backend

import (
	"net"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/shell/wire"
)

// A leaving backend fails the balancers' health probe but serves on; its
// admin listener stays healthy (the process is alive).
func TestLeaveFailsHealthButServes(t *testing.T) {
	b, n := startMem(t, labWith(t))
	data := func() (net.Conn, error) { return n.dial("data") }
	admin := func() (net.Conn, error) { return n.dial("admin") }
	if r := do(data, "GET", "/healthz", ""); r.code != 200 {
		t.Fatalf("healthz before: %d %s", r.code, r.body)
	}
	b.Leave()
	if r := do(data, "GET", "/healthz", ""); r.code != 503 || !strings.Contains(string(r.body), `"status":"leaving"`) {
		t.Errorf("healthz while leaving: %d %s", r.code, r.body)
	}
	if r := do(data, "GET", "/x", "", wire.HWork, "1ms"); r.code != 200 {
		t.Errorf("a request while leaving: %d %s %v", r.code, r.body, r.err)
	}
	if r := do(admin, "GET", "/healthz", ""); r.code != 200 {
		t.Errorf("admin healthz while leaving: %d", r.code)
	}
}
