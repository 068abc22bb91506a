package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/assemble"
)

// TestDrillOverBudgetRefused: a set drill that would make the running lab
// cost more than the budget (lab up --max-cost) is refused with 400 naming
// the product, before any process sees it; a cheap one passes.
func TestDrillOverBudgetRefused(t *testing.T) {
	lab := smallLab(t, "p2c", 3600)
	if err := lab.Apply("clients.keys", "1000000"); err != nil { // fixed for a run: the lab's own
		t.Fatal(err)
	}
	addr := startUp(t, lab, func(o *UpOptions) {
		o.Budget = assemble.Budget{Memory: 16 << 20, CPU: time.Minute} // the 3-server lab takes about 10 KiB
	})
	code, body := send(t, "POST", addr, "/api/chaos", "", `{"action":"set","set":{"servers.cache.size":"1000000"}}`, nil)
	if code != 400 || !strings.Contains(body, "servers[0]: 3 servers x 1000000 cache entries") || !strings.Contains(body, "--max-cost") {
		t.Fatalf("a 96 MB cache drill under a 16 MiB budget: %d %s", code, body)
	}
	code, body = send(t, "POST", addr, "/api/chaos", "", `{"action":"set","set":{"servers.cache.size":"1000"}}`, nil)
	if code != 200 {
		t.Fatalf("a cheap drill: %d %s", code, body)
	}
}
