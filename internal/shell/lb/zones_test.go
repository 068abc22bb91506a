package lb

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/pace"
)

// With zones the lb's hops are the links' between its zone and the other
// end's: lb1 in a forwards to s1 in b over the cross-zone 30 ms and answers
// its client, in a, over the zone's own 5 ms.
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
		_, _, hc, stop := memLB(t, Config{Lab: lab, Waits: pace.Runtime}, 0)
		start := time.Now()
		a := do(t, hc, "GET", "/", "")
		if took := time.Since(start); a.status != 200 || took != 35*time.Millisecond {
			t.Errorf("got %d after %v, want 200 after exactly 35ms (30 to the server's zone, 5 back)", a.status, took)
		}
		stop()
		time.Sleep(15 * time.Second) // fasthttp's cleaners (see TestTimeoutInVirtualTime)
	})
}
