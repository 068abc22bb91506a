package lb

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPutAlgorithm(t *testing.T) {
	f1, f2 := startFake(t, "s1"), startFake(t, "s2")
	l, c := startLB(t, testLab(t), f1, f2)
	a := c.call(t, "PUT", "/admin/algorithm", `{"algorithm":"round-robin"}`)
	if a.status != 200 || a.body != "{\"algorithm\":\"round-robin\",\"previous\":\"p2c\"}\n" {
		t.Fatalf("PUT algorithm: %d %s", a.status, a.body)
	}
	if s := c.state(t); s.Algorithm != "round-robin" {
		t.Errorf("state algorithm %s", s.Algorithm)
	}
	awaitEvents(t, l.AdminAddr(), `"kind":"algorithm","text":"algorithm: p2c -> round-robin"`)
}

func TestBadAdminInputChangesNothing(t *testing.T) {
	f := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f)
	before := c.state(t)
	cases := []struct{ method, path, body, field string }{
		{"PUT", "/admin/algorithm", `{"algorithm":"fastest"}`, "balancers.algorithm"},
		{"PUT", "/admin/algorithm", `{"algorithm":`, "bad JSON"},
		{"PUT", "/admin/algorithm", `{"algorithm":"p2c","speed":2}`, `unknown field \"speed\"`},
		{"PUT", "/admin/algorithm", `{}`, "algorithm: required"},
		{"PUT", "/admin/settings", `{"timeout":"-1s"}`, "timeout: balancers.timeout"},
		{"PUT", "/admin/settings", `{"timeout":"100ms","hop":"soon"}`, "hop: network.hop"},
		{"PUT", "/admin/settings", `{"timeout":100}`, "timeout"},
		{"PUT", "/admin/settings", `{"breaker":{"enabled":true,"window":5}}`, "breaker.window"},
		{"PUT", "/admin/settings", `{"health":{"fails":0}}`, "health.fails"},
		{"POST", "/admin/set", `{"path":"balancers.nope","value":"1"}`, "balancers.nope"},
		{"POST", "/admin/set", `{"path":"balancers.timeout","value":[1]}`, "value"},
		{"POST", "/admin/set", `{"value":"1s"}`, "path: required"},
		{"POST", "/admin/backends", `{"name":"s 2","addr":"127.0.0.1:1"}`, "name"},
		{"POST", "/admin/backends", `{"name":"s2","addr":"nowhere"}`, "addr"},
		{"POST", "/admin/backends", `{"name":"s2","addr":"127.0.0.1:1","weight":-1}`, "weight"},
		// the lab file's bounds (labfile.Bounds), named with the field
		{"PUT", "/admin/settings", `{"jitter":"100h"}`, `network.jitter: must be in [0s, 10s], got 100h","code":400,"field":"network.jitter"`},
		{"PUT", "/admin/settings", `{"timeout":"100h"}`, `balancers.timeout: must be in [0s, 1h], got 100h`},
		{"PUT", "/admin/settings", `{"subset":1000000000}`, `balancers.subset: must be between 0 and 10000`},
		{"PUT", "/admin/settings", `{"health":{"enabled":true,"interval":"1ns"}}`, `balancers.health.interval: must be in [10ms, 1h], got 1ns`},
		{"POST", "/admin/set", `{"path":"balancers.refresh","value":"1ns"}`, `balancers.refresh: must be in [10ms, 1h]`},
		{"POST", "/admin/backends", `{"name":"s2","addr":"127.0.0.1:99999"}`, `addr: backend s2: \"127.0.0.1:99999\": the port must be a number in 1..65535`},
	}
	for _, tc := range cases {
		a := c.call(t, tc.method, tc.path, tc.body)
		var e struct {
			Error string `json:"error"`
			Code  int    `json:"code"`
		}
		if err := json.Unmarshal([]byte(a.body), &e); err != nil || a.status != 400 || e.Code != 400 {
			t.Errorf("%s %s %s: %d %s, want 400 JSON", tc.method, tc.path, tc.body, a.status, a.body)
			continue
		}
		if !strings.Contains(a.body, tc.field) {
			t.Errorf("%s %s: error %q does not name %q", tc.path, tc.body, e.Error, tc.field)
		}
	}
	after := c.state(t)
	if !reflect.DeepEqual(before.Settings, after.Settings) || before.Algorithm != after.Algorithm ||
		len(after.Backends) != 1 {
		t.Errorf("bad input changed the state:\n%+v\n%+v", before, after)
	}
}

// checkSettings reports each setting of want that s does not hold.
func checkSettings(t *testing.T, s Settings, want map[string]any) {
	t.Helper()
	for name, w := range want {
		if !hasSetting(s, name, w) {
			v, _ := s.Value(name)
			t.Errorf("setting %s is %v, want %v", name, v, w)
		}
	}
}

// hasSetting reports whether s holds setting name with JSON value want.
func hasSetting(s Settings, name string, want any) bool {
	v, ok := s.Value(name)
	return ok && v == want
}

func TestSettingsAndSet(t *testing.T) {
	f := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f)
	a := c.call(t, "PUT", "/admin/settings", `{"timeout":"100ms","hop":"1ms","breaker":{"enabled":true,"window":20,
		"threshold":0.5,"open":"1s","probes":3},"health":{"enabled":true,"interval":"1s","fails":2,"passes":2}}`)
	var s Settings
	if err := json.Unmarshal([]byte(a.body), &s); err != nil || a.status != 200 {
		t.Fatalf("PUT settings: %d %s", a.status, a.body)
	}
	checkSettings(t, s, map[string]any{"timeout": "100ms", "hop": "1ms", "jitter": "0s", "load": "local", "refresh": "500ms",
		"hash_on": "key", "choices": 2.0, "vnodes": 100.0, "epsilon": 0.25, "decay": "1s",
		"breaker.enabled": true, "breaker.window": 20.0, "breaker.threshold": 0.5, "breaker.open": "1s", "breaker.probes": 3.0,
		"outlier.consecutive_failures": 5.0, "outlier.interval": "1s", "outlier.base_ejection": "5s", "outlier.max_ejection": "1m0s",
		"outlier.max_ejection_share": 0.2, "outlier.success_rate_k": 1.9, "outlier.latency_k": 1.9, "outlier.min_requests": 10.0,
		"slow_start.window": "10s", "slow_start.floor": 0.1, "slow_start.aggression": 1.0,
		"health.enabled": true, "health.interval": "1s", "health.fails": 2.0, "health.passes": 2.0})
	if !s.Breaker.Enabled || s.Timeout != "100ms" {
		t.Errorf("the fields read from the JSON: %+v", s)
	}
	a = c.call(t, "POST", "/admin/set", `{"path":"balancers.timeout","value":"250ms"}`)
	if a.status != 200 || !strings.Contains(a.body, `"applied":true`) || c.state(t).Settings.Timeout != "250ms" {
		t.Errorf("set timeout: %d %s", a.status, a.body)
	}
	a = c.call(t, "POST", "/admin/set", `{"path":"balancers.breaker.threshold","value":0.75}`)
	if a.status != 200 || !hasSetting(c.state(t).Settings, "breaker.threshold", 0.75) {
		t.Errorf("set threshold as a number: %d %s", a.status, a.body)
	}
	a = c.call(t, "POST", "/admin/set", `{"path":"clients.rate","value":"whatever"}`)
	if a.status != 200 || !strings.Contains(a.body, `"applied":false`) {
		t.Errorf("set outside balancers: %d %s", a.status, a.body)
	}
	a = c.call(t, "POST", "/admin/set", `{"path":"balancers.decay","value":"2s"}`)
	if a.status != 200 || !hasSetting(c.state(t).Settings, "decay", "2s") {
		t.Errorf("set decay: %d %s", a.status, a.body)
	}
	if a := c.get(t, "/"); a.status != 200 {
		t.Errorf("proxy after a new decay: %+v", a)
	}
}

func TestAddAndRemoveBackend(t *testing.T) {
	f1, f2, f3 := startFake(t, "s1"), startFake(t, "s2"), startFake(t, "s3")
	_, c := startLB(t, testLab(t, "balancers.algorithm", "round-robin"), f1, f2)
	body := `{"name":"s3","addr":"` + f3.addr() + `","admin":"` + f3.addr() + `"}`
	if a := c.call(t, "POST", "/admin/backends", body); a.status != 200 || !strings.Contains(a.body, `"present":true`) {
		t.Fatalf("POST backend: %d %s", a.status, a.body)
	}
	if a := c.call(t, "POST", "/admin/backends", body); a.status != 409 {
		t.Errorf("duplicate POST: %d %s, want 409", a.status, a.body)
	}
	for range 9 {
		c.get(t, "/")
	}
	if f3.hits.Load() != 3 {
		t.Errorf("added s3 got %d of 9", f3.hits.Load())
	}
	if a := c.call(t, "DELETE", "/admin/backends/s1", ""); a.status != 200 {
		t.Fatalf("DELETE: %d %s", a.status, a.body)
	}
	before := f1.hits.Load()
	for range 6 {
		c.get(t, "/")
	}
	if f1.hits.Load() != before {
		t.Error("removed s1 still served")
	}
	if a := c.call(t, "DELETE", "/admin/backends/s1", ""); a.status != 404 {
		t.Errorf("second DELETE: %d, want 404", a.status)
	}
	s := c.state(t)
	if len(s.Backends) != 3 || s.Backends[0].Present || s.Backends[0].Picks != 3 {
		t.Errorf("state after removal: %+v", s.Backends)
	}
}

func TestAdminRouting(t *testing.T) {
	f := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f)
	if a := c.call(t, "GET", "/healthz", ""); a.status != 200 || a.body != "{\"ok\":true}\n" {
		t.Errorf("healthz: %d %s", a.status, a.body)
	}
	if a := c.call(t, "POST", "/admin/state", ""); a.status != 405 {
		t.Errorf("POST state: %d", a.status)
	}
	if a := c.call(t, "GET", "/metrics", ""); a.status != 200 {
		t.Errorf("metrics: %d", a.status)
	}
	if a := c.call(t, "POST", "/metrics", ""); a.status != 405 {
		t.Errorf("POST metrics: %d", a.status)
	}
}

func TestShutdownEndsEventStreams(t *testing.T) {
	f := startFake(t, "s1")
	l, c := startLB(t, testLab(t), f)
	c.call(t, "PUT", "/admin/algorithm", `{"algorithm":"random"}`)
	conn, err := net.Dial("tcp", l.AdminAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /admin/events HTTP/1.1\r\nHost: %s\r\n\r\n", l.AdminAddr())
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if line, err := bufio.NewReader(conn).ReadString('}'); err != nil || !strings.Contains(line, "random") {
		t.Fatalf("stream: %q %v", line, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	if err := l.Shutdown(ctx); err != nil || time.Since(start) > time.Second {
		t.Errorf("shutdown with an open event stream: %v after %v", err, time.Since(start))
	}
}
