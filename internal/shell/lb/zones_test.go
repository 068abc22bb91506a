package lb

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/pace"
)

// With zones the lb's hops are the links' between its zone and the other
// end's: lb1 in a forwards to s1 in b over the cross-zone 30 ms and answers
// its client, in a, over the zone's own 5 ms; a set of the link changes
// its next hop to b.
func TestZoneHopsInVirtualTime(t *testing.T) {
	_, _, hc, stop := memLB(t, Config{Lab: testLab(t)}, 0) // fasthttp's refresher starts outside the bubble
	do(t, hc, "GET", "/", "")
	stop()
	lab, err := labfile.Parse("z.yaml", []byte(`
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
		l, _, hc, stop := memLB(t, Config{Lab: lab, Waits: pace.Runtime}, 0)
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
		stop()
		time.Sleep(15 * time.Second) // fasthttp's cleaners (see TestTimeoutInVirtualTime)
	})
}
