package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// --max-servers bounds the processes of a live run, counting the servers
// its script adds, and add-server drills stop at it: each server is a
// process (42 of them took 800 MB).
func TestMaxServersCountsAddedServers(t *testing.T) {
	lab := smallLab(t, "p2c", 10)
	lab.Events = []labfile.Event{{At: time.Second, Action: "add-server", Target: "s4"}}
	if err := CheckFleet(lab, 3); err == nil || !strings.Contains(err.Error(), "4 servers with those its script adds") {
		t.Fatalf("3 servers and an add-server event under --max-servers 3: %v", err)
	}
	if err := CheckFleet(lab, 4); err != nil {
		t.Fatalf("under --max-servers 4: %v", err)
	}

	addr := startUp(t, smallLab(t, "p2c", 3600), func(o *UpOptions) { o.MaxServers = 3 })
	code, body := send(t, "POST", addr, "/api/chaos", "", `{"action":"add-server","target":"s4"}`, nil)
	if code != 400 || !strings.Contains(body, "the most --max-servers allows (3)") {
		t.Fatalf("add-server past --max-servers: %d %s", code, body)
	}
}
