package backend

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/testbin"
)

// With zones the answer's hop back is the link's between this server's
// zone and its sender's: s1 is in b, lb1 in a and lb2 in b, the client ids
// in a: from lb1 it takes the cross-zone 30 ms, from lb2 the zone's own
// 5 ms, from a client that balances itself (id 3, in a) 30 ms, and from a
// sender the lab does not know, 5 ms.
func TestZoneHopBack(t *testing.T) {
	lab, err := labyaml.Parse("z.yaml", []byte(`
zones: [{name: a}, {name: b}]
network: {hop: 5ms, cross_zone: {hop: 30ms}}
clients: {zones: [a]}
balancers: {count: 2, zones: [a, b]}
servers: [{zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, lab)
		c := client{t, n}
		for _, x := range []struct {
			headers []string
			want    time.Duration
		}{
			{[]string{wire.HBalancer, "lb1", wire.HClient, "3"}, 30 * time.Millisecond},
			{[]string{wire.HBalancer, "lb2", wire.HClient, "3"}, 5 * time.Millisecond},
			{[]string{wire.HClient, "3"}, 30 * time.Millisecond},
			{nil, 5 * time.Millisecond},
		} {
			r := c.data("GET", "/", append([]string{wire.HWork, "10ms", wire.HRequest, "1"}, x.headers...)...)
			if r.code != 200 || r.took != 10*time.Millisecond+x.want {
				t.Errorf("%v: %d after %v, want 200 after 10ms of work and a %v hop", x.headers, r.code, r.took, x.want)
			}
		}
	})
}

// idleSink is a balancer's admin API that counts the idle announcements
// it gets (POST /admin/idle) and the questions of its idle queue's length
// (asked, answered 0), on 127.0.0.1.
func idleSink(t *testing.T) (addr string, got, asked *atomic.Int64) {
	got, asked = new(atomic.Int64), new(atomic.Int64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == "POST" && r.URL.Path == wire.IdlePath:
			got.Add(1)
		case r.Method == "GET" && r.URL.Path == wire.IdleQueuePath:
			asked.Add(1)
			_, _ = w.Write([]byte(`{"length":0}`))
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), got, asked
}

// Live, as in the simulator (sim's TestIdleAnnouncementsInZones): s2, in
// zone b, announces itself only to lb2 (b's balancer) under a locality
// layer, to both balancers without one, and not across a partition; a set
// of balancers.jiq.join applies to its next announcements (the backend
// kept the join rule it started with).
func TestIdleAnnouncementsStayInTheirZone(t *testing.T) {
	lab, err := labyaml.Parse("z.yaml", []byte(`
zones: [{name: a}, {name: b}]
network: {hop: 0s}
balancers: {count: 2, zones: [a, b], algorithm: jiq, locality: {policy: local}}
servers: [{zone: a}, {zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(Config{Lab: lab, Name: "s2", Access: wire.Access{AllowHosts: []string{"backend"}}})
	if err != nil {
		t.Fatal(err)
	}
	testbin.Start(t, "s2", b)
	c := tcpClient{t: t, data: b.Addr(), admin: b.AdminAddr()}
	lb1Addr, toA, askedA := idleSink(t)
	lb2Addr, toB, askedB := idleSink(t)
	if r := c.post(wire.BalancersPath, `{"balancers":["`+lb1Addr+`","`+lb2Addr+`"]}`); r.code != 200 {
		t.Fatalf("POST %s: %d %s", wire.BalancersPath, r.code, r.body)
	}
	serve := func(n int) {
		for range n { // each reply leaves the one-worker server idle: one announcement
			if r := c.get(wire.HWork, "0s"); r.code != 200 {
				t.Fatalf("GET: %d %s", r.code, r.body)
			}
		}
	}
	serve(20)
	waitFor(t, "20 announcements", func() bool { return toA.Load()+toB.Load() == 20 })
	if toA.Load() != 0 {
		t.Errorf("under a locality layer %d of 20 announcements went to lb1, in the other zone", toA.Load())
	}
	if r := c.post("/admin/set", `{"path":"balancers.locality.policy","value":"none"}`); r.code != 200 {
		t.Fatalf("set: %d %s", r.code, r.body)
	}
	serve(40)
	waitFor(t, "60 announcements", func() bool { return toA.Load()+toB.Load() == 60 })
	if toA.Load() == 0 {
		t.Errorf("without a layer none of 40 announcements went to lb1")
	}
	// a set of the join rule applies to the next announcements, as in the
	// simulator: join shortest asks both balancers their queue's length
	if askedA.Load()+askedB.Load() != 0 {
		t.Fatalf("join random asked %d queue lengths", askedA.Load()+askedB.Load())
	}
	if r := c.post("/admin/set", `{"path":"balancers.jiq.join","value":"shortest"}`); r.code != 200 {
		t.Fatalf("set: %d %s", r.code, r.body)
	}
	serve(10)
	waitFor(t, "70 announcements", func() bool { return toA.Load()+toB.Load() == 70 })
	if askedA.Load() != 10 || askedB.Load() != 10 {
		t.Errorf("join shortest asked lb1 %d and lb2 %d times for 10 announcements, want 10 each", askedA.Load(), askedB.Load())
	}
	before := toA.Load() + toB.Load()
	if r := c.post("/admin/set", `{"path":"network.partition","value":"true"}`); r.code != 200 {
		t.Fatalf("set: %d %s", r.code, r.body)
	}
	serve(40)
	waitFor(t, "the partitioned ones counted", func() bool {
		st := c.state()
		return st.Idle != nil && st.Idle.Sent+st.Idle.Failed >= uint64(before)+40
	})
	if got := toA.Load() + toB.Load() - before; got == 0 || got == 40 {
		t.Errorf("partitioned: %d of 40 announcements arrived, want those to lb2 only (some lost to lb1)", got)
	}
}
