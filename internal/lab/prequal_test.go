package lab

import (
	"io"
	"net/http"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Prequal live: an lb balancing with prequal probes the real backends
// (GET /probe on their data ports), off the requests' path, probe_rate of
// them per request; the backends answer every one and count it, the lb
// keeps the answers in its pool, and its picks shun the slow server. A
// backend's GET /probe answers its requests in flight and its latency.
func TestPrequalProbesRealBackends(t *testing.T) {
	ctx := ctxFor(t, 90*time.Second)
	lab := smallLab(t, "prequal", 2)
	lab.Servers = append(lab.Servers, lab.Servers[0]) // s3, at a quarter of the speed
	for _, kv := range [][2]string{{"servers[0].count", "2"}, {"servers[1].count", "1"}, {"servers[1].speed", "0.25"},
		{"clients.rate", "200"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := lab.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := startFleet(ctx, lab, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	run, _ := runLoadgen(t, ctx, f)
	if run.Requests < 300 || run.Succeeded != run.Requests {
		t.Fatalf("%d requests, %d succeeded", run.Requests, run.Succeeded)
	}
	lb := f.balancers()[0].Ready
	var st state.LB
	deadline := time.Now().Add(5 * time.Second)
	for { // the last probes come back after the last answers
		if err := admin.Call(ctx, lb.Admin, "GET", "/admin/state", nil, &st); err != nil {
			t.Fatal(err)
		}
		if p := st.Probes; p != nil && p.Answered+p.Failed == p.Sent || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	p := st.Probes
	t.Logf("%d requests, probes %+v", run.Requests, p)
	// three servers, probe_rate 3: every pick probes each eligible one
	if p == nil || p.Sent != 3*run.Attempts || p.Answered != p.Sent || p.Failed != 0 || p.Dropped != 0 {
		t.Fatalf("the lb's probes %+v over %d attempts, want 3 per attempt, every one answered", p, run.Attempts)
	}
	var answered uint64
	for _, b := range f.servers() {
		var bs state.Backend
		if err := admin.Call(ctx, b.Ready.Admin, "GET", "/admin/state", nil, &bs); err != nil {
			t.Fatal(err)
		}
		answered += bs.Counters.Probes
	}
	if answered != p.Sent {
		t.Errorf("the backends answered %d probes, the lb sent %d", answered, p.Sent)
	}
	figures := gather.Probes(gather.ReadStates(ctx, f.servers(), f.balancers(), zap.NewNop()), run.Requests)
	if figures.Sent != p.Sent || figures.Answered != answered || figures.PerRequest < 2.99 {
		t.Errorf("the report's probes %+v, want %d sent, %d answered, 3 a request", figures, p.Sent, answered)
	}
	pooled := 0
	for _, b := range st.Backends {
		if b.Probe != nil {
			pooled++
			if b.Probe.RIF < 0 || b.Probe.AgeMs < 0 {
				t.Errorf("%s's answer in the pool: %+v", b.Name, *b.Probe)
			}
		}
		if b.Name == "s3" && b.Share > 0.25 { // the slow server: a third would be an even share
			t.Errorf("prequal sent the quarter-speed s3 %.3f of its picks", b.Share)
		}
	}
	if pooled == 0 {
		t.Errorf("the lb's pool holds no answer: %+v", st.Backends)
	}

	// GET /probe by hand: well-formed, and the latency of what it served.
	resp, err := http.Get("http://" + f.servers()[0].Ready.Addr + wire.ProbePath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	ans, err := wire.ParseProbe(body)
	if resp.StatusCode != 200 || err != nil || ans.RIF != 0 || ans.Latency <= 0 || ans.Latency > time.Second {
		t.Errorf("GET /probe: %d %s (%+v, %v), want 200, nothing in flight and the latency of the requests it served", resp.StatusCode, body, ans, err)
	}
}
