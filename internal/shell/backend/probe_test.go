package backend

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
)

// GET /probe answers at once, without a worker or a queue place: the
// requests in flight now and the latency of those served at about as
// many; the answers count in the state. Any other method on /probe is a
// job like any path.
func TestProbeAnswersInFlightAndLatency(t *testing.T) {
	_, n := startMem(t, labWith(t, "servers[0].workers", "1", "network.hop", "0s"))
	c := client{t: t, n: n}
	probe := func() (int, time.Duration) {
		t.Helper()
		r := c.data("GET", wire.ProbePath)
		p, err := wire.ParseProbe(r.body)
		if r.code != 200 || err != nil || r.header("Content-Type") != "application/json" {
			t.Fatalf("GET /probe: %d %s %v", r.code, r.body, err)
		}
		return p.RIF, p.Latency
	}
	if rif, lat := probe(); rif != 0 || lat != 0 {
		t.Fatalf("idle and new: %d in flight, %v, want 0 and no estimate", rif, lat)
	}
	first := async(func() result { return c.data("GET", "/a", wire.HWork, "150ms") })
	time.Sleep(30 * time.Millisecond)
	second := async(func() result { return c.data("GET", "/b", wire.HWork, "150ms") })
	time.Sleep(30 * time.Millisecond)
	if rif, _ := probe(); rif != 2 {
		t.Errorf("with one request in service and one queued: %d in flight, want 2", rif)
	}
	for _, ch := range []<-chan result{first, second} {
		if r := <-ch; r.code != 200 {
			t.Fatalf("a job: %d %s %v", r.code, r.body, r.err)
		}
	}
	// served alone: 150 ms; the second waited for the first: about 270 ms
	rif, lat := probe()
	if rif != 0 || lat < 200*time.Millisecond || lat > 300*time.Millisecond {
		t.Errorf("after both: %d in flight, %v, want 0 and the median of about 150 and 270 ms", rif, lat)
	}
	if got := c.state().Counters.Probes; got != 3 {
		t.Errorf("the state counts %d probes, want 3", got)
	}
	if r := c.data("POST", wire.ProbePath, wire.HWork, "1ms"); r.code != 200 || !contains(string(r.body), `"server":"s1"`) {
		t.Errorf("POST /probe is a job: %d %s", r.code, r.body)
	}
}
