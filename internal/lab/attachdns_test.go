package lab

import (
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/attach"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/discover/dnstest"
)

// lab dashboard --backends-dns: a backend whose name resolves joins the
// dashboard (named as it names itself) and takes drills; when the record
// goes it leaves, and drills at it are refused; when it comes back, it
// rejoins. The names here resolve to 127.0.0.1, the port of s2's admin
// listener of a lab up; s1 is given by --backends.
func TestAttachFollowsDNS(t *testing.T) {
	upAddr, o, sd := upToAttach(t)
	dns := dnstest.New("127.0.0.1")
	for _, e := range sd {
		ep := attach.Endpoint{Name: e.Labels["name"], Admin: e.Targets[0]}
		switch {
		case e.Labels["process"] == "lb":
			o.LBs = append(o.LBs, ep)
		case ep.Name == "s1":
			o.Backends = append(o.Backends, ep)
		case ep.Name == "s2":
			_, port, _ := net.SplitHostPort(ep.Admin)
			p, _ := strconv.Atoi(port)
			o.BackendsDNS = &discover.Config{Host: "backend.test", AdminPort: p, Every: 100 * time.Millisecond, Resolver: dns}
		case e.Labels["process"] == "loadgen":
			o.Loadgen = ep.Admin
		}
	}
	ctx, addr := startAttach(t, o)

	servers := func(s dash.Snapshot) string {
		var names []string
		for _, v := range s.Servers {
			names = append(names, v.Name)
		}
		return strings.Join(names, ",")
	}
	waitSnapshot(t, addr, 5*time.Second, "s1 and s2", func(s dash.Snapshot) bool { return servers(s) == "s1,s2" })
	slow := json.RawMessage(`{"action":"slow","target":"s2","speed":0.5}`)
	if err := admin.Call(ctx, addr, "POST", "/api/chaos", slow, nil); err != nil {
		t.Fatalf("a drill at the discovered s2: %v", err)
	}
	waitSnapshot(t, upAddr, 3*time.Second, "s2 slowed", func(s dash.Snapshot) bool {
		return len(s.Servers) == 3 && s.Servers[1].Backend != nil && s.Servers[1].Backend.Speed == 0.5
	})

	dns.Set() // NXDOMAIN
	waitSnapshot(t, addr, 5*time.Second, "s2 gone", func(s dash.Snapshot) bool { return servers(s) == "s1" })
	err := admin.Call(ctx, addr, "POST", "/api/chaos", slow, nil)
	if se, ok := err.(*admin.StatusError); !ok || se.Code != 400 {
		t.Errorf("a drill at s2 after it left: %v, want 400", err)
	}

	dns.Set("127.0.0.1")
	s := waitSnapshot(t, addr, 5*time.Second, "s2 back", func(s dash.Snapshot) bool { return servers(s) == "s1,s2" })
	var log []string
	for _, l := range s.Log {
		if strings.HasPrefix(l.Text, "dns ") {
			log = append(log, l.Text)
		}
	}
	if len(log) != 2 || !strings.Contains(log[0], "backend s2 left") || !strings.Contains(log[1], "backend s2 joined at 127.0.0.1:") {
		t.Errorf("the event log's dns lines: %q", log)
	}
}
