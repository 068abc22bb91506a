package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
)

// The lab file of an added server expands to its name, with the last
// server's settings, and is a valid lab (a named group s7 would not be).
func TestAddedServerLab(t *testing.T) {
	lab := labfile.Default()
	if err := lab.Apply("servers[0].workers", "3"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"s6", "s7", "big", "s2"} {
		l := addedServerLab(lab, labfile.Event{Action: labfile.ActionAddServer, Target: name})
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
	if err := admin.Call(ctx, addr, "POST", "/api/chaos", json.RawMessage(`{"action":"add-server"}`), &out); err != nil || out.Applied != "add-server s4" {
		t.Fatalf("POST /api/chaos add-server: %v, applied %q; want add-server s4", err, out.Applied)
	}
	ev, err := labfile.ParseDrill([]string{"add-server"})
	if err != nil {
		t.Fatal(err)
	}
	if applied, err := control.SendDrill(ctx, addr, ev); err != nil || applied != "add-server s5" {
		t.Fatalf("lab chaos add-server: %v, applied %q; want add-server s5", err, applied)
	}
	var st control.State
	if err := admin.Call(ctx, addr, "GET", "/api/state", nil, &st); err != nil {
		t.Fatal(err)
	}
	var l state.LB
	if err := json.Unmarshal(st.Balancers[0], &l); err != nil {
		t.Fatal(err)
	}
	if len(st.Servers) != 5 || len(l.Backends) != 5 || l.Backends[4].Name != "s5" {
		t.Fatalf("after two add-server drills: %d servers, the lb has %d backends", len(st.Servers), len(l.Backends))
	}
	waitSnapshot(t, addr, 10*time.Second, "s5 serving", func(s dash.Snapshot) bool {
		return len(s.Servers) == 5 && s.Servers[4].Backend != nil && s.Servers[4].Backend.Counters.Completed > 0
	})
}

// When the clients balance themselves the loadgen holds the server list:
// add-server and remove-server reach it as they reach the balancers
// otherwise, so the added server gets the clients' traffic and the removed
// one leaves their rotation, as in lab sim.
func TestClientSideAddAndRemoveServerLive(t *testing.T) {
	lab := smallLab(t, "round-robin", 2)
	if err := lab.Apply("clients.algorithm", "round-robin"); err != nil {
		t.Fatal(err)
	}
	lab.Events = []labfile.Event{{At: 500 * time.Millisecond, Action: "add-server", Target: "s4"},
		{At: time.Second, Action: "remove-server", Target: "s1"}}
	rep, err := Run(ctxFor(t, 60*time.Second), lab, []labfile.Setting{{Name: "client-side"}}, RunOptions{Options: testOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	sent := map[string]uint64{}
	for _, s := range run.Servers {
		sent[s.Name] += s.Sent
	}
	// Round robin over s1-s3 for 0.5 s, s1-s4 for 0.5 s, s2-s4 for 1 s: s4
	// gets about a third of the 300 requests, s1 about a fifth.
	if sent["s4"] < 50 || sent["s1"] > 110 {
		t.Errorf("sent per server %v: s4 should get about 100, s1 about 60", sent)
	}
	text := fmt.Sprint(run.Log)
	if !strings.Contains(text, "server s4 added") || !strings.Contains(text, "server s1 removed") {
		t.Errorf("log %v", run.Log)
	}
}

// add-server with a speed and workers, live: the new backend runs at that
// speed with that many workers, its lb weighs it by the speed, and the
// log line names both; without them it is like the last server.
func TestAddServerWithSpeedAndWorkers(t *testing.T) {
	addr := startUp(t, smallLab(t, "p2c", 3600))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out struct {
		Applied string `json:"applied"`
	}
	if err := admin.Call(ctx, addr, "POST", "/api/chaos", json.RawMessage(`{"action":"add-server","speed":2,"workers":4}`), &out); err != nil || out.Applied != "add-server s4 speed=2 workers=4" {
		t.Fatalf("POST /api/chaos add-server speed 2 workers 4: %v, applied %q", err, out.Applied)
	}
	if err := admin.Call(ctx, addr, "POST", "/api/chaos", json.RawMessage(`{"action":"add-server","speed":200}`), nil); err == nil || !strings.Contains(err.Error(), "speed") {
		t.Errorf("add-server at speed 200: %v, want a refusal naming speed", err)
	}
	if err := admin.Call(ctx, addr, "POST", "/api/chaos", json.RawMessage(`{"action":"add-server"}`), &out); err != nil || out.Applied != "add-server s5" {
		t.Fatalf("add-server: %v, applied %q", err, out.Applied)
	}
	s := waitSnapshot(t, addr, 10*time.Second, "s4 and s5 serving", func(s dash.Snapshot) bool {
		return len(s.Servers) == 5 && s.Servers[3].Backend != nil && s.Servers[4].Backend != nil &&
			s.Servers[3].Backend.Counters.Completed > 0 && s.Servers[4].Backend.Counters.Completed > 0
	})
	if b := s.Servers[3].Backend; b.Speed != 2 || b.Workers != 4 {
		t.Errorf("s4 runs at speed %g with %d workers, want 2 and 4", b.Speed, b.Workers)
	}
	if b, last := s.Servers[4].Backend, s.Servers[2].Backend; b.Speed != last.Speed || b.Workers != last.Workers {
		t.Errorf("s5 runs at speed %g with %d workers, want s3's %g and %d", b.Speed, b.Workers, last.Speed, last.Workers)
	}
	var st control.State
	if err := admin.Call(ctx, addr, "GET", "/api/state", nil, &st); err != nil {
		t.Fatal(err)
	}
	var l state.LB
	if err := json.Unmarshal(st.Balancers[0], &l); err != nil {
		t.Fatal(err)
	}
	if w := l.Backends[3].Weight; w != 2 {
		t.Errorf("the lb weighs s4 %g, want its speed 2", w)
	}
}
