package lb

import (
	"testing"
	"time"
)

// An lb balancing with prequal probes its backends' GET /probe off the
// requests' path and picks by their answers: the hot one (many requests in
// flight) and the slow one lose to the cold fast one. A probe slower than
// the requests holds none of them up, and an answer it cannot read counts
// as failed. Shutdown waits for the probes on their way (the test's leak
// check).
func TestPrequalProbesFromTheLB(t *testing.T) {
	fast, hot, slow := startFake(t, "fast"), startFake(t, "hot"), startFake(t, "slow")
	fast.probeLatencyUs.Store(2000)
	hot.probeRIF.Store(40)
	hot.probeLatencyUs.Store(1000)
	slow.probeLatencyUs.Store(30000)
	l, c := startLB(t, testLab(t, "balancers.algorithm", "prequal"), fast, hot, slow)
	for range 200 {
		if a := c.get(t, "/"); a.status != 200 {
			t.Fatalf("%d %s", a.status, a.body)
		}
		time.Sleep(time.Millisecond) // room for the probes' answers
	}
	waitProbes(t, l)
	st := l.State()
	if p := st.Probes; p == nil || p.Sent < 3*200-10 || p.Answered != p.Sent || p.Failed != 0 {
		t.Fatalf("probes %+v, want 3 a request, all answered", st.Probes)
	}
	if n := fast.probed.Load() + hot.probed.Load() + slow.probed.Load(); n != int64(st.Probes.Sent) {
		t.Errorf("the backends saw %d probes, the lb sent %d", n, st.Probes.Sent)
	}
	for _, f := range []*fake{hot, slow} {
		if f.completed.Load() > 40 { // an answer may be missing from the pool for a pick now and then
			t.Errorf("%s served %d of 200 requests, fast %d", f.name, f.completed.Load(), fast.completed.Load())
		}
	}
	for _, b := range st.Backends {
		if b.Name == "hot" && b.Probe != nil && !b.Probe.Hot {
			t.Errorf("hot's answer in the pool is not hot: %+v", *b.Probe)
		}
	}

	// Probes that take 300 ms hold no request up.
	for _, f := range []*fake{fast, hot, slow} {
		f.probeDelay.Store(int64(300 * time.Millisecond))
	}
	for range 10 {
		if a := c.get(t, "/"); a.status != 200 || a.took > 150*time.Millisecond {
			t.Fatalf("a request beside slow probes: %d after %v", a.status, a.took)
		}
	}
	// An answer the lb cannot read counts as failed.
	for _, f := range []*fake{fast, hot, slow} {
		f.probeDelay.Store(0)
		f.probeBody.Store(`{"rif":-3,"latency_ms":1}`)
	}
	before := l.State().Probes.Failed
	c.get(t, "/")
	waitProbes(t, l)
	if p := l.State().Probes; p.Failed < before+3 {
		t.Errorf("unreadable answers: probes %+v, want 3 more failed", p)
	}
}

// waitProbes waits until every probe sent has ended.
func waitProbes(t *testing.T, l *LB) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if p := l.State().Probes; p != nil && p.Answered+p.Failed == p.Sent {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("probes still on their way: %+v", l.State().Probes)
}
