package loadgen

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Client-side mode: no balancer; p2c-stale compares the queues the servers
// piggyback on their answers, so the one reporting a long queue gets little.
func TestClientSideUsesPiggybackedLoad(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.algorithm": "p2c-stale", "clients.rate": "300"})
	busy := newFake(t, "s1", false, func(got, int) answer { return answer{status: 200, loadQ: 50} })
	idle := newFake(t, "s2", false, func(got, int) answer { return answer{status: 200, loadQ: 0} })
	rep, _ := runLive(t, Config{Lab: lab, Servers: []Backend{{"s1", busy.addr()}, {"s2", idle.addr()}},
		Dial: dialer(busy, idle)})
	run := rep.Runs[0]
	checkAccounted(t, run)
	if run.Name != "p2c-stale" || run.Algorithm != "p2c-stale" || len(run.Servers) != 2 {
		t.Fatalf("run %s/%s servers %+v", run.Name, run.Algorithm, run.Servers)
	}
	s1, s2 := run.Servers[0], run.Servers[1]
	if s1.Sent != uint64(len(busy.got())) || s2.Sent != uint64(len(idle.got())) || s1.Sent+s2.Sent != run.Attempts {
		t.Errorf("sent %d/%d, the fakes got %d/%d", s1.Sent, s2.Sent, len(busy.got()), len(idle.got()))
	}
	if s2.Share < 0.75 || s1.MaxQueue != 50 {
		t.Errorf("the idle server got %.2f of the requests (busy max queue %d)", s2.Share, s1.MaxQueue)
	}
}

func TestClientSideNeedsServers(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.algorithm": "p2c-stale"})
	_, err := New(Config{Lab: lab, Targets: []Target{{URLs: []string{"http://127.0.0.1:1"}}}})
	if err == nil || !strings.Contains(err.Error(), "--servers") {
		t.Errorf("err = %v", err)
	}
}

func TestParseTargetsAndServers(t *testing.T) {
	ts, err := ParseTargets("p2c=http://127.0.0.1:8081|http://127.0.0.1:8082, 127.0.0.1:8083/x")
	if err != nil || len(ts) != 2 || ts[0].Name != "p2c" || len(ts[0].URLs) != 2 || ts[1].Name != "" {
		t.Fatalf("targets %+v, %v", ts, err)
	}
	if _, err := ParseTargets("https://x:1"); err == nil {
		t.Error("https accepted")
	}
	ss, err := ParseServers("a=127.0.0.1:1,127.0.0.1:2")
	if err != nil || len(ss) != 2 || ss[0].Name != "a" || ss[1].Name != "s2" {
		t.Fatalf("servers %+v, %v", ss, err)
	}
	if _, err := ParseServers("s1=nowhere"); err == nil {
		t.Error("address without port accepted")
	}
}

// call sends one admin request to h and decodes the JSON answer.
func call(t *testing.T, h fasthttp.RequestHandler, method, path, body string) (int, map[string]any) {
	t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(path)
	ctx.Request.SetBodyString(body)
	h(&ctx)
	var out map[string]any
	if err := json.Unmarshal(ctx.Response.Body(), &out); err != nil {
		t.Fatalf("%s %s: %v: %q", method, path, err, ctx.Response.Body())
	}
	return ctx.Response.StatusCode(), out
}

func TestAdminAPI(t *testing.T) {
	lab := testLab(t, nil)
	f := newFake(t, "b1", false, okAfterWork)
	r, err := New(Config{Lab: lab, Targets: []Target{toFakes("admin", f)}, Dial: dialer(f)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *report.Report)
	go func() { rep, _ := r.Run(context.Background()); done <- rep }()
	h := r.Admin()
	for _, c := range []struct{ method, path, body string }{
		{"PUT", "/admin/rate", `{"rate": -1}`},
		{"PUT", "/admin/rate", `{"rate": 1e9}`},
		{"PUT", "/admin/rate", `{"rate": 1e308}`},
		{"PUT", "/admin/rate", `800`},
		{"PUT", "/admin/rate", `{"rate": 800, "extra": 1}`},
		{"POST", "/admin/set", `{"path": "clients.budget", "value": "lots"}`},
		{"POST", "/admin/set", `{"path": "clients.nope", "value": "1"}`},
		{"POST", "/admin/set", `{"value": "1"}`},
		{"POST", "/admin/set", `{"path": "clients.keys", "value": "50"}`},      // fixed for a run: the stream is built once
		{"POST", "/admin/set", `{"path": "servers.gc.every", "value": "1s"}`},  // fixed for a run, though not this process's
		{"POST", "/admin/set", `{"path": "network.keepalive", "value": "1s"}`}, // fixed for a run
	} {
		if code, body := call(t, h, c.method, c.path, c.body); code != 400 || body["error"] == "" {
			t.Errorf("%s %s %s: %d %v", c.method, c.path, c.body, code, body)
		}
	}
	if code, _ := call(t, h, "GET", "/admin/nope", ""); code != 404 {
		t.Errorf("unknown endpoint: %d", code)
	}
	if code, body := call(t, h, "PUT", "/admin/rate", `{"rate": 600}`); code != 200 || body["rate"] != 600.0 {
		t.Errorf("rate: %d %v", code, body)
	}
	if code, body := call(t, h, "POST", "/admin/set", `{"path": "clients.budget", "value": "0.1"}`); code != 200 || body["applied"] != true {
		t.Errorf("set budget: %d %v", code, body)
	}
	if code, body := call(t, h, "POST", "/admin/set", `{"path": "network.hop", "value": "2ms"}`); code != 200 || body["applied"] != true {
		t.Errorf("set hop (the client -> balancer leg is this process's): %d %v", code, body)
	}
	if code, body := call(t, h, "POST", "/admin/set", `{"path": "balancers.algorithm", "value": "random"}`); code != 200 || body["applied"] != false {
		t.Errorf("set other: %d %v", code, body)
	}
	if code, body := call(t, h, "GET", "/admin/state", ""); code != 200 || body["rate"] != 600.0 || body["mode"] != "open" {
		t.Errorf("state: %d %v", code, body)
	}
	rep := <-done
	run := rep.Runs[0]
	checkAccounted(t, run)
	if run.Requests < 400 || len(run.Log) < 2 || run.Log[0].Text != "rate 600" ||
		run.Log[1].Text != "set clients.budget=0.1" || len(run.Log) < 3 || run.Log[2].Text != "set network.hop=2ms" { // about 600 requests in 1 s
		t.Errorf("after the rate change: %s, log %v", describe(run), run.Log)
	}
	if code, _ := call(t, h, "GET", "/admin/state", ""); code != 503 {
		t.Errorf("state after the run: %d", code)
	}
}

// BenchmarkPacing measures the requests/s one loop sustains against an
// in-memory fake that answers at once.
func BenchmarkPacing(b *testing.B) {
	lab := testLab(b, map[string]string{"clients.rate": "100000", "network.hop": "0s", "duration": "300ms"})
	f := newFake(b, "b1", false, func(got, int) answer { return answer{status: 200, loadQ: -1} })
	var sent, late uint64
	start := time.Now()
	for b.Loop() {
		rep, r := runLive(b, Config{Lab: lab, Targets: []Target{toFakes("bench", f)}, Dial: dialer(f)})
		sent += rep.Runs[0].Requests
		late += r.Late()
	}
	b.ReportMetric(float64(sent)/time.Since(start).Seconds(), "req/s")
	b.ReportMetric(float64(late)/float64(max(sent, 1)), "late/req")
}

// Attempts run on reused workers: thousands of quick attempts need only as
// many goroutines as were ever busy at once, not one each. (A stall of the
// machine legitimately puts many attempts out at once, so the bound is the
// run's own peak, with room for workers between answering and parking.)
func TestWorkersAreReused(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.rate": "5000", "network.hop": "0s", "duration": "400ms"})
	f := newFake(t, "b1", false, func(got, int) answer { return answer{status: 200, loadQ: -1} })
	rep, r := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("reuse", f)}, Dial: dialer(f)})
	run := rep.Runs[0]
	checkAccounted(t, run)
	started, peak, attempts := int(r.l.tr.pool.started.Load()), r.l.peak, int(run.Attempts)
	t.Logf("%d attempts on %d workers; at most %d out at once", attempts, started, peak)
	bound := 2*peak + 16
	if attempts < 1000 || started > bound {
		t.Errorf("%d attempts started %d workers with at most %d out at once; want at most %d", attempts, started, peak, bound)
	}
	if bound >= attempts {
		t.Logf("the run stalled (peak %d of %d attempts): this run cannot tell reuse from none", peak, attempts)
	}
}

// A wrong method on a path of the admin API was a 404 "no such endpoint"
// (and /healthz took any method): it is a 405 naming the methods the path
// takes in the Allow header, JSON as every error; an unknown path stays a
// 404. No run is needed: the methods are checked before the loop is asked.
func TestAdminWrongMethods(t *testing.T) {
	f := newFake(t, "b1", false, okAfterWork)
	r, err := New(Config{Lab: testLab(t, nil), Targets: []Target{toFakes("admin", f)}, Dial: dialer(f)})
	if err != nil {
		t.Fatal(err)
	}
	h := r.Admin()
	for _, c := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{"GET", "/admin/rate", 405, "PUT, POST"},
		{"DELETE", "/admin/state", 405, "GET, HEAD"},
		{"GET", "/admin/set", 405, "POST"},
		{"PUT", "/admin/backends", 405, "POST"},
		{"GET", "/admin/backends/s1", 405, "DELETE"},
		{"POST", "/healthz", 405, "GET, HEAD"},
		{"POST", "/metrics", 405, "GET, HEAD"},
		{"GET", "/admin/nope", 404, ""},
		{"GET", "/nope", 404, ""},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(c.method)
		ctx.Request.SetRequestURI(c.path)
		h(&ctx)
		var body wire.ErrorBody
		err := json.Unmarshal(ctx.Response.Body(), &body)
		if ctx.Response.StatusCode() != c.code || err != nil || body.Code != c.code || body.Error == "" ||
			string(ctx.Response.Header.Peek("Allow")) != c.allow {
			t.Errorf("%s %s: %d Allow %q %s; want %d Allow %q and a JSON error", c.method, c.path, ctx.Response.StatusCode(),
				ctx.Response.Header.Peek("Allow"), ctx.Response.Body(), c.code, c.allow)
		}
	}
}
