package lb

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
)

func TestBreakerOpensProbesAndCloses(t *testing.T) {
	f1, f2 := startFake(t, "s1"), startFake(t, "s2")
	f1.status.Store(500)
	l, c := startLB(t, testLab(t, "balancers.algorithm", "round-robin", "balancers.breaker.enabled", "true",
		"balancers.breaker.window", "10", "balancers.breaker.open", "400ms", "balancers.breaker.probes", "2"), f1, f2)
	for range 20 { // s1 sees 10 failures: a full window
		c.get(t, "/")
	}
	opened := time.Now()
	if st := c.state(t).backend("s1").Breaker; st != "open" {
		t.Fatalf("s1 breaker %s after 10 failures, want open", st)
	}
	if v := metric(t, c, `lblab_lb_breaker_state{backend="s1",balancer="lbt"}`); v != 2 {
		t.Errorf("breaker state metric %v, want 2 (open)", v)
	}
	before := f1.hits.Load()
	for range 5 {
		a := c.get(t, "/")
		if time.Since(opened) > 300*time.Millisecond {
			break // a loaded machine took most of the open time: a probe may be due (not a failure)
		}
		if a.server != "s2" {
			t.Fatalf("open breaker let a request through to %s", a.server)
		}
	}
	if time.Since(opened) < 300*time.Millisecond && (f1.hits.Load() != before || f1.probes.Load() != 0) {
		t.Fatalf("s1 got traffic while open")
	}
	time.Sleep(420 * time.Millisecond) // half-open: a failing probe re-opens
	sendUntil(t, c, func() bool { return f1.probes.Load() >= 1 })
	f1.status.Store(200)
	time.Sleep(420 * time.Millisecond) // half-open again: two good probes close
	sendUntil(t, c, func() bool { return c.state(t).backend("s1").Breaker == "closed" })
	if p := f1.probes.Load(); p < 3 {
		t.Errorf("s1 saw %d requests tagged probe, want >= 3", p)
	}
	if v := metric(t, c, `lblab_lb_probes_total{backend="s1",balancer="lbt"}`); v != float64(f1.probes.Load()) {
		t.Errorf("probes metric %v, s1 saw %d", v, f1.probes.Load())
	}
	awaitEvents(t, l.AdminAddr(), "breaker s1: closed -> open", "breaker s1: open -> half-open",
		"breaker s1: half-open -> open", "breaker s1: half-open -> closed")
}

// sendUntil sends requests until cond holds (at most 200).
func sendUntil(t *testing.T, c *client, cond func() bool) {
	t.Helper()
	for range 200 {
		if cond() {
			return
		}
		c.get(t, "/")
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("condition never held")
}

func TestHealthChecksEjectAndRestore(t *testing.T) {
	f1, f2 := startFake(t, "s1"), startFake(t, "s2")
	l, c := startLB(t, testLab(t, "balancers.algorithm", "round-robin", "balancers.health.enabled", "true",
		"balancers.health.interval", "20ms", "balancers.health.fails", "2", "balancers.health.passes", "2"), f1, f2)
	f1.down.Store(true)
	eventually(t, "s1 ejected", func() bool { return !c.state(t).backend("s1").Healthy })
	if v := metric(t, c, `lblab_lb_healthy{backend="s1",balancer="lbt"}`); v != 0 {
		t.Errorf("healthy metric %v while ejected", v)
	}
	before := f1.hits.Load()
	for range 10 {
		if a := c.get(t, "/"); a.server != "s2" {
			t.Fatalf("ejected s1 still picked")
		}
	}
	if f1.hits.Load() != before {
		t.Fatal("s1 served while ejected")
	}
	f1.down.Store(false)
	eventually(t, "s1 back", func() bool { return c.state(t).backend("s1").Healthy })
	for range 4 {
		c.get(t, "/")
	}
	if f1.hits.Load() != before+2 {
		t.Errorf("s1 got %d of 4 requests after coming back, want 2", f1.hits.Load()-before)
	}
	awaitEvents(t, l.AdminAddr(), "health s1: down after 2 failed checks", "health s1: up after 2 passed checks")
	c.call(t, "PUT", "/admin/settings", `{"health":{"enabled":false}}`)
}

func TestSharedLoadPolling(t *testing.T) {
	f1, f2, f3 := startFake(t, "s1"), startFake(t, "s2"), startFake(t, "s3")
	f1.queued.Store(40)
	_, c := startLB(t, testLab(t, "balancers.algorithm", "least-outstanding", "balancers.load", "shared",
		"balancers.refresh", "20ms"), f1, f2, f3)
	eventually(t, "s1's report", func() bool { return c.state(t).backend("s1").Outstanding == 40 })
	for range 20 {
		if a := c.get(t, "/"); a.server == "s1" {
			t.Fatal("least-outstanding picked s1, which reports 40 queued")
		}
	}
	f1.queued.Store(0)
	f2.queued.Store(30)
	f3.queued.Store(30)
	// Each backend is polled on its own: wait until all three fresh reports
	// are in (waiting for s2's alone let a pick see s3's stale 0).
	eventually(t, "fresh reports", func() bool {
		s := c.state(t)
		return s.backend("s1").Outstanding == 0 && s.backend("s2").Outstanding == 30 && s.backend("s3").Outstanding == 30
	})
	if a := c.get(t, "/"); a.server != "s1" {
		t.Errorf("picked %s, want s1 (the only idle one)", a.server)
	}
}

// The processes of a lab share its token; the lb presents its own to the
// backends' admin APIs: the shared-load polls and the cancellations it fans
// out are not refused (they were: 401, and the lb balanced on stale loads).
func TestPeersPresentTheLabsToken(t *testing.T) {
	const token = "lab-token-0123456789abcdef"
	f1, f2 := startFake(t, "s1"), startFake(t, "s2")
	f1.token, f2.token = token, token
	f1.queued.Store(40)
	lab := testLab(t, "balancers.algorithm", "least-outstanding", "balancers.load", "shared", "balancers.refresh", "20ms")
	_, c := startLBWith(t, Config{Name: "lbt", Lab: lab, Backends: specs(f1, f2), IdleConn: time.Second,
		Access: wire.Access{Token: token}})
	eventually(t, "s1's report", func() bool { return stateWith(t, c, token).backend("s1").Outstanding == 40 })
	a := do(t, c.admin, "POST", "/admin/cancel", `{"id":5,"attempt":"hedge"}`, "Authorization", "Bearer "+token)
	if a.status != 200 || !strings.Contains(a.body, `"backends":2,"failed":0`) {
		t.Errorf("cancel: %d %s; want both backends asked, none failed", a.status, a.body)
	}
}

// stateWith fetches GET /admin/state presenting token.
func stateWith(t *testing.T, c *client, token string) shownState {
	a := do(t, c.admin, "GET", "/admin/state", "", "Authorization", "Bearer "+token)
	var s shownState
	if err := json.Unmarshal([]byte(a.body), &s); err != nil {
		t.Fatalf("state %d %q: %v", a.status, a.body, err)
	}
	return s
}

func TestEventRingKeepsLast200(t *testing.T) {
	ev := newEvents(200)
	for i := range 250 {
		ev.add(Event{Kind: "settings", Text: fmt.Sprint(i)})
	}
	backlog, sub := ev.subscribe()
	defer ev.unsubscribe(sub)
	if len(backlog) != 200 || backlog[0].Text != "50" || backlog[199].Text != "249" {
		t.Fatalf("backlog %d events from %s to %s", len(backlog), backlog[0].Text, backlog[len(backlog)-1].Text)
	}
	for range subBuffer + 10 { // a reader that never reads must not block
		ev.add(Event{Text: "x"})
	}
	if n := ev.takeDropped(sub); n != 10 {
		t.Errorf("dropped %d, want 10", n)
	}
}
