package lb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/metrics"
)

// TestMetricsMatchDoc scrapes GET /metrics after a little traffic and an
// algorithm change, and checks the exposition against docs/metrics.md.
func TestMetricsMatchDoc(t *testing.T) {
	docs, err := metrics.ReadDoc("../../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	f1, f2 := startFake(t, "s1"), startFake(t, "s2")
	f2.status.Store(503)
	_, c := startLB(t, testLab(t, "balancers.algorithm", "round-robin"), f1, f2)
	for range 4 {
		c.get(t, "/")
	}
	c.call(t, "PUT", "/admin/algorithm", `{"algorithm":"p2c"}`)
	a := c.call(t, "GET", "/metrics", "")
	if a.status != 200 {
		t.Fatalf("GET /metrics: %d %s", a.status, a.body)
	}
	problems, err := metrics.CheckExposition(strings.NewReader(a.body), docs, "lb", "every process")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	for _, line := range []string{
		`lblab_lb_requests_total{backend="s1",balancer="lbt",outcome="ok"} 2`,
		`lblab_lb_requests_total{backend="s2",balancer="lbt",outcome="rejected"} 2`,
		`lblab_lb_request_duration_seconds_count{backend="s1",balancer="lbt"} 2`,
		`lblab_lb_outstanding{backend="s1",balancer="lbt"} 0`,
		`lblab_lb_healthy{backend="s2",balancer="lbt"} 1`,
		`lblab_lb_breaker_state{backend="s1",balancer="lbt"} 0`,
		`lblab_lb_no_backend_total{balancer="lbt"} 0`,
		`lblab_events_total{kind="algorithm"} 1`,
		`lblab_events_total{kind="breaker"} 0`,
	} {
		if !strings.Contains(a.body, "\n"+line+"\n") {
			t.Errorf("no line %s", line)
		}
	}
}

// TestMetricsNoBackendAndRemoval: a request with nothing eligible counts as
// no backend, and a removed backend's gauges go while its counters stay.
func TestMetricsNoBackendAndRemoval(t *testing.T) {
	f := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f)
	c.get(t, "/")
	c.call(t, "DELETE", "/admin/backends/s1", "")
	if a := c.get(t, "/"); a.status != 503 {
		t.Fatalf("no backend: %d", a.status)
	}
	body := c.call(t, "GET", "/metrics", "").body
	for _, line := range []string{
		`lblab_lb_no_backend_total{balancer="lbt"} 1`,
		`lblab_lb_requests_total{backend="s1",balancer="lbt",outcome="ok"} 1`,
		`lblab_events_total{kind="backend"} 1`,
	} {
		if !strings.Contains(body, "\n"+line+"\n") {
			t.Errorf("no line %s", line)
		}
	}
	if strings.Contains(body, "lblab_lb_healthy{") {
		t.Errorf("a removed backend still has gauges")
	}
}

// metric scrapes GET /metrics and returns the value of one series, written
// as in the exposition (name{labels in name order}); -1 when absent.
func metric(t testing.TB, c *client, series string) float64 {
	t.Helper()
	for line := range strings.Lines(c.call(t, "GET", "/metrics", "").body) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return -1
}
