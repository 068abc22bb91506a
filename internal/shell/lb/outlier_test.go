package lb

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A backend that answers slowly but correctly (a gray failure) is ejected
// by the latency detector: no breaker would open on it. Four backends under
// round robin; s4 takes 60 ms, the others answer at once. Each interval of
// 300 ms s4's mean latency is sqrt(3) standard deviations above the four's
// mean, above K 1.5.
func TestOutlierEjectsSlowBackend(t *testing.T) {
	fakes := []*fake{startFake(t, "s1"), startFake(t, "s2"), startFake(t, "s3"), startFake(t, "s4")}
	fakes[3].delay.Store(int64(60 * time.Millisecond)) // well above a loaded machine's own stalls
	l, c := startLB(t, testLab(t, "balancers.algorithm", "round-robin", "balancers.breaker.enabled", "true",
		"balancers.outlier.enabled", "true", "balancers.outlier.latency_k", "1.5", "balancers.outlier.success_rate_k", "0",
		"balancers.outlier.interval", "300ms", "balancers.outlier.min_requests", "2",
		"balancers.outlier.base_ejection", "1m", "balancers.outlier.max_ejection", "1m",
		"balancers.outlier.max_ejection_share", "0.25"), fakes...)
	sendUntil(t, c, func() bool { return c.state(t).backend("s4").Ejected })
	before := fakes[3].hits.Load()
	for range 40 {
		if a := c.get(t, "/"); a.status != 200 || a.server == "s4" {
			t.Fatalf("answer %d from %s while s4 is ejected", a.status, a.server)
		}
	}
	if got := fakes[3].hits.Load(); got != before {
		t.Fatalf("s4 got %d requests while ejected", got-before)
	}
	st := c.state(t)
	for _, b := range st.Backends {
		if b.Breaker != "closed" || b.Ejected != (b.Name == "s4") {
			t.Errorf("%s: breaker %s, ejected %v", b.Name, b.Breaker, b.Ejected)
		}
	}
	ev := awaitEvents(t, l.AdminAddr(), "outlier s4: ejected for 1m0s (latency ")
	if strings.Contains(ev, "outlier s1") || strings.Contains(ev, "outlier s2") || strings.Contains(ev, "outlier s3") {
		t.Errorf("a fast backend was ejected:\n%s", ev)
	}
	if v := metric(t, c, `lblab_events_total{kind="outlier"}`); v < 1 {
		t.Errorf("outlier events metric %v", v)
	}
}

// The outlier and slow-start settings go through PUT /admin/settings like
// the others: applied together, shown in the answer, refused with a 400
// naming the field when out of range.
func TestOutlierAndSlowStartSettings(t *testing.T) {
	f1 := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f1)
	a := c.call(t, "PUT", "/admin/settings", `{"outlier":{"enabled":true,"latency_k":1.5,"interval":"250ms"},
		"slow_start":{"enabled":true,"window":"2s","floor":0.2,"aggression":1.5}}`)
	if a.status != 200 {
		t.Fatalf("PUT settings: %d %s", a.status, a.body)
	}
	var s Settings
	if err := json.Unmarshal([]byte(a.body), &s); err != nil {
		t.Fatal(err)
	}
	checkSettings(t, s, map[string]any{"outlier.enabled": true, "outlier.latency_k": 1.5, "outlier.interval": "250ms",
		"outlier.consecutive_failures": 5.0, "slow_start.enabled": true, "slow_start.window": "2s", "slow_start.floor": 0.2,
		"slow_start.aggression": 1.5})
	for body, want := range map[string]string{
		`{"outlier":{"max_ejection_share":0}}`: "outlier.max_ejection_share: balancers.outlier.max_ejection_share: must be in (0, 1]",
		`{"slow_start":{"floor":2}}`:           "slow_start.floor: balancers.slow_start.floor: must be in (0, 1]",
		`{"subset":2,"aperture":3}`:            "balancers.aperture: and balancers.subset are two ways",
	} {
		a := c.call(t, "PUT", "/admin/settings", body)
		if a.status != 400 || !strings.Contains(a.body, want) {
			t.Errorf("PUT %s: %d %s, want 400 with %q", body, a.status, a.body, want)
		}
	}
	got, _ := json.Marshal(c.state(t).Settings)
	if was, _ := json.Marshal(s); string(got) != string(was) {
		t.Errorf("a refused change altered the settings:\n%s\nwas\n%s", got, was)
	}
}
