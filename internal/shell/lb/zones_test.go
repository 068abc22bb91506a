package lb

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/shell/pace"
)

// With zones the lb's hops are the links' between its zone and the other
// end's: lb1 in a forwards to s1 in b over the cross-zone 30 ms and answers
// its client, in a, over the zone's own 5 ms; a set of the link changes
// its next hop to b, and a partition cuts it.
func TestZoneHopsInVirtualTime(t *testing.T) {
	_, _, hc, stop := memLB(t, Config{Lab: testLab(t)}, 0) // fasthttp's refresher starts outside the bubble
	do(t, hc, "GET", "/", "")
	stop()
	lab, err := labyaml.Parse("z.yaml", []byte(`
zones: [{name: a}, {name: b}]
network: {hop: 5ms, cross_zone: {hop: 30ms}}
clients: {zones: [a]}
balancers: {zones: [a]}
servers: [{zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		l, f, hc, stop := memLB(t, Config{Lab: lab, Waits: pace.Runtime}, 0)
		start := time.Now()
		a := do(t, hc, "GET", "/", "")
		if took := time.Since(start); a.status != 200 || took != 35*time.Millisecond {
			t.Errorf("got %d after %v, want 200 after exactly 35ms (30 to the server's zone, 5 back)", a.status, took)
		}
		// a set of the link mid-run (a link-delay drill, a set event) is the
		// lb's: its next hop to b takes it
		var set fasthttp.RequestCtx
		set.Request.SetBodyString(`{"path":"network.cross_zone.hop","value":"50ms"}`)
		l.postSet(&set) // as the lab controller sends every set to every process
		if set.Response.StatusCode() != 200 || !strings.Contains(string(set.Response.Body()), `"applied":true`) {
			t.Errorf("POST /admin/set: %d %s", set.Response.StatusCode(), set.Response.Body())
		}
		start = time.Now()
		if a, took := do(t, hc, "GET", "/", ""), time.Since(start); a.status != 200 || took != 55*time.Millisecond {
			t.Errorf("after the link's set: %d after %v, want 200 after exactly 55ms", a.status, took)
		}
		// partitioned: the server, across the cut link, is never reached:
		// 502 at once, over the 5 ms back to the client
		set.Request.SetBodyString(`{"path":"network.partition","value":"true"}`)
		l.postSet(&set)
		start = time.Now()
		if a, took := do(t, hc, "GET", "/", ""), time.Since(start); a.status != 502 || took != 5*time.Millisecond || f.completed.Load() != 2 {
			t.Errorf("partitioned: %d after %v (the server served %d), want 502 after exactly 5ms, the server untouched", a.status, took, f.completed.Load())
		}
		stop()
		time.Sleep(15 * time.Second) // fasthttp's cleaners (see TestTimeoutInVirtualTime)
	})
}

// A cancellation reaches each backend over the hop to that backend's zone,
// as the simulator's reaches the attempt's server: lb1 in a, s1 in a (no
// hop), s2 in b (200 ms across). It took the lb's own zone's hop to every
// backend, so a queued loser across a zone was cancelled too early.
func TestCancelTakesEachBackendsZoneHop(t *testing.T) {
	lab, err := labyaml.Parse("z.yaml", []byte(`
zones: [{name: a}, {name: b}]
network: {hop: 0s, cross_zone: {hop: 200ms}}
balancers: {zones: [a]}
servers: [{zone: a}, {zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	f1, f2 := startFake(t, "s1"), startFake(t, "s2")
	_, c := startLBWith(t, Config{Name: "lbt", Lab: lab, IdleConn: time.Second, Backends: []BackendSpec{
		{Name: "s1", Addr: f1.addr(), Admin: f1.addr()}, {Name: "s2", Addr: f2.addr(), Admin: f2.addr()}}})
	sent := time.Now()
	if a := do(t, c.admin, "POST", "/admin/cancel", `{"id":5,"attempt":"hedge"}`); a.status != 200 || !strings.Contains(a.body, `"backends":2,"failed":0`) {
		t.Fatalf("cancel: %d %s", a.status, a.body)
	}
	at1, at2 := time.Unix(0, f1.cancelAt.Load()), time.Unix(0, f2.cancelAt.Load())
	if at2.Sub(sent) < 200*time.Millisecond {
		t.Errorf("s2, across the zones, got the cancellation %v after it was sent, want >= 200ms", at2.Sub(sent))
	}
	if !at1.Before(at2) {
		t.Errorf("s1, in the lb's zone, got it at %v, not before s2 (%v)", at1.Sub(sent), at2.Sub(sent))
	}
}
