package lab

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/lb"
)

func TestNextServerName(t *testing.T) {
	lab := labfile.Default() // s1..s5
	if got := nextServerName(lab); got != "s6" {
		t.Errorf("first added to 5: %s, want s6", got)
	}
	lab.Events = []labfile.Event{{Action: "add-server", Target: "s6"}, {Action: "add-server", Target: "big"}}
	if got := nextServerName(lab); got != "s8" {
		t.Errorf("third added to 5: %s, want s8 (as a lab file would name it)", got)
	}
	lab.Events = append(lab.Events, labfile.Event{Action: "add-server", Target: "s9"})
	if got := nextServerName(lab); got != "s10" {
		t.Errorf("with s9 taken by hand: %s, want s10", got)
	}
}

// The lab file of an added server expands to its name, with the last
// server's settings, and is a valid lab (a named group s7 would not be).
func TestAddedServerLab(t *testing.T) {
	lab := labfile.Default()
	if err := lab.Apply("servers[0].workers", "3"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s6", "s7", "big", "s2"} {
		l := addedServerLab(lab, name)
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		found := false
		for _, s := range l.ExpandServers() {
			if s.Name == name {
				found = s.Workers == 3
			}
		}
		if !found {
			t.Errorf("%s: not in the lab it runs, with the last server's settings", name)
		}
	}
}

// add-server without a target, as the dashboard's button and lab chaos
// send it, names the server itself; a second one works too (s5 is not the
// lab's next positional name), and every balancer gets both.
func TestAddServerDrill(t *testing.T) {
	addr := startUp(t, smallLab(t, "p2c", 3600))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out struct {
		Applied string `json:"applied"`
	}
	if err := call(ctx, addr, "POST", "/api/chaos", json.RawMessage(`{"action":"add-server"}`), &out); err != nil || out.Applied != "add-server s4" {
		t.Fatalf("POST /api/chaos add-server: %v, applied %q; want add-server s4", err, out.Applied)
	}
	ev, err := ParseDrill([]string{"add-server"})
	if err != nil {
		t.Fatal(err)
	}
	if applied, err := SendDrill(ctx, addr, ev); err != nil || applied != "add-server s5" {
		t.Fatalf("lab chaos add-server: %v, applied %q; want add-server s5", err, applied)
	}
	var st State
	if err := call(ctx, addr, "GET", "/api/state", nil, &st); err != nil {
		t.Fatal(err)
	}
	var l lb.State
	if err := json.Unmarshal(st.Balancers[0], &l); err != nil {
		t.Fatal(err)
	}
	if len(st.Servers) != 5 || len(l.Backends) != 5 || l.Backends[4].Name != "s5" {
		t.Fatalf("after two add-server drills: %d servers, the lb has %d backends", len(st.Servers), len(l.Backends))
	}
	waitSnapshot(t, addr, 10*time.Second, "s5 serving", func(s Snapshot) bool {
		return len(s.Servers) == 5 && s.Servers[4].Backend != nil && s.Servers[4].Backend.Counters.Completed > 0
	})
}
