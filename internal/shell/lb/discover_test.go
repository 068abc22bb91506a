package lb

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/discover/dnstest"
)

// fleetNet maps the made-up addresses the test's resolver returns to fakes
// listening on 127.0.0.1.
type fleetNet map[string]*fake // IP -> fake

func (n fleetNet) dial(addr string) (net.Conn, error) {
	host, _, _ := net.SplitHostPort(addr)
	f, ok := n[host]
	if !ok || f.closed.Load() {
		return nil, errors.New("connection refused")
	}
	return net.Dial("tcp", f.addr())
}

func (n fleetNet) identify(_ context.Context, m discover.Member) (string, error) {
	host, _, _ := net.SplitHostPort(m.Admin)
	if f, ok := n[host]; ok {
		return f.name, nil
	}
	return "", errors.New("connection refused")
}

// TestDiscoveryAddsAndRemovesBackends runs an lb whose backends come from a
// DNS name only: the first round happens before it serves, a new record is
// a new backend that gets traffic, a record gone takes its backend out.
func TestDiscoveryAddsAndRemovesBackends(t *testing.T) {
	nw := fleetNet{"10.0.0.1": startFake(t, "b1"), "10.0.0.2": startFake(t, "b2"), "10.0.0.3": startFake(t, "b3")}
	dns := dnstest.New()
	dns.Set("10.0.0.1", "10.0.0.2")
	l, c := startLBWith(t, Config{Name: "lbd", Lab: testLab(t, "balancers.algorithm", "round-robin"), IdleConn: time.Second,
		Dial: nw.dial, Discover: &discover.Config{Host: "backend", Port: 9001, AdminPort: 9100, Every: time.Hour,
			Resolver: dns, Identify: nw.identify}})

	served := func(n int) map[string]int {
		out := map[string]int{}
		for range n {
			a := c.get(t, "/x")
			if a.status != 200 {
				t.Fatalf("status %d from %q: %s", a.status, a.server, a.body)
			}
			out[a.server]++
		}
		return out
	}
	if got := served(4); got["b1"] != 2 || got["b2"] != 2 {
		t.Fatalf("after the first round: %v, want b1 and b2 twice each", got)
	}
	st := c.state(t)
	if b := st.backend("b2"); b.Addr != "10.0.0.2:9001" || b.Admin != "10.0.0.2:9100" {
		t.Errorf("b2 as discovered: %+v", b)
	}

	dns.Set("10.0.0.1", "10.0.0.2", "10.0.0.3")
	if err := l.disc.Round(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := served(6); got["b3"] != 2 {
		t.Fatalf("after scaling to 3: %v, want b3 to get its third", got)
	}

	dns.Set("10.0.0.2", "10.0.0.3")
	for range 2 { // a member goes after two resolutions without it
		if err := l.disc.Round(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if got := served(6); got["b1"] != 0 || got["b2"] != 3 {
		t.Fatalf("after b1's record went: %v", got)
	}
	st = c.state(t)
	if st.backend("b1").Present || st.Discovery == nil || st.Discovery.Rounds != 4 || st.Discovery.Members != 2 {
		t.Errorf("state: b1 %+v, discovery %+v", st.backend("b1"), st.Discovery)
	}
}

// A discovered backend whose name is already a static backend's is
// refused (the round says why) and the static one keeps serving.
func TestDiscoveryNameConflict(t *testing.T) {
	static, dup := startFake(t, "b1"), startFake(t, "b1")
	nw := fleetNet{"10.0.0.9": dup}
	dns := dnstest.New()
	dns.Set("10.0.0.9")
	l, c := startLBWith(t, Config{Name: "lbd", Lab: testLab(t), IdleConn: time.Second, Backends: specs(static),
		Dial: func(addr string) (net.Conn, error) {
			if addr == static.addr() {
				return net.Dial("tcp", addr)
			}
			return nw.dial(addr)
		},
		Discover: &discover.Config{Host: "backend", Port: 9001, AdminPort: 9100, Every: time.Hour, Resolver: dns, Identify: nw.identify}})
	err := l.disc.Round(context.Background())
	if err == nil || !strings.Contains(err.Error(), "already exists") || !strings.Contains(c.state(t).Discovery.Error, "already exists") {
		t.Fatalf("want the conflict reported, got %v", err)
	}
	for range 3 {
		c.get(t, "/x")
	}
	if static.hits.Load() != 3 || dup.hits.Load() != 0 {
		t.Errorf("static %d, discovered duplicate %d hits", static.hits.Load(), dup.hits.Load())
	}
}

func TestDiscoveryConfigErrors(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no data port": {Discover: &discover.Config{Host: "backend", AdminPort: 9100}},
		"shared load":  {Lab: testLab(t, "balancers.load", "shared"), Discover: &discover.Config{Host: "backend", Port: 9001}},
		"bad interval": {Discover: &discover.Config{Host: "backend", Port: 9001, Every: time.Millisecond}},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: no error", name)
		} else if err.Error()[:9] != "discover:" {
			t.Errorf("%s: error %q does not start with discover:", name, err)
		}
	}
}
