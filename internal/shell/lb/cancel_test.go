package lb

import (
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	labbackend "github.com/lblab/lblab/internal/shell/backend"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/testbin"
)

// startBackend runs a real single-worker backend on 127.0.0.1 with no hop,
// shut down at cleanup.
func startBackend(t *testing.T, name string) *labbackend.Backend {
	t.Helper()
	lab := testLab(t, "servers[0].count", "2")
	b, err := labbackend.New(labbackend.Config{Lab: lab, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	testbin.Start(t, name, b)
	return b
}

// deadAddr is a 127.0.0.1 address nobody listens on.
func deadAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// POST /admin/cancel waits one hop, then asks every backend's admin API to
// drop the queued attempts of that request and kind, and sums their counts.
func TestCancelFansOutToBackends(t *testing.T) {
	s1, s2 := startBackend(t, "s1"), startBackend(t, "s2")
	dead := deadAddr(t)
	lab := testLab(t, "network.hop", "30ms")
	_, c := startLBWith(t, Config{Name: "lbt", Lab: lab, IdleConn: time.Second, Backends: []BackendSpec{
		{Name: "s1", Addr: s1.Addr(), Admin: s1.AdminAddr()},
		{Name: "s2", Addr: s2.Addr(), Admin: s2.AdminAddr()},
		{Name: "s3", Addr: dead, Admin: dead}, // its cancellation fails
		{Name: "s4", Addr: dead},              // no admin address: not asked
	}})
	admin := c.admin

	// Straight to the backends: one attempt in service on each, then
	// request 5's attempts queued behind it (a first and a hedge on s1, a
	// hedge on s2) and a hedge of another request.
	var answers []chan int
	send := func(b *labbackend.Backend, id, kind string) {
		ch := make(chan int, 1)
		answers = append(answers, ch)
		go func() {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			req.SetRequestURI("http://" + b.Addr() + "/")
			req.Header.Set(wire.HRequest, id)
			req.Header.Set(wire.HAttempt, kind)
			req.Header.Set(wire.HWork, "300ms")
			req.SetConnectionClose()
			if err := fasthttp.DoTimeout(req, resp, 10*time.Second); err != nil {
				ch <- 0
				return
			}
			ch <- resp.StatusCode()
		}()
	}
	send(s1, "1", "first")
	send(s2, "2", "first")
	eventually(t, "both backends busy", func() bool { return s1.State().Busy == 1 && s2.State().Busy == 1 })
	send(s1, "5", "first")
	eventually(t, "s1's queue", func() bool { return s1.State().Queued == 1 })
	send(s1, "5", "hedge")
	send(s2, "5", "hedge")
	send(s2, "6", "hedge")
	eventually(t, "the queues", func() bool { return s1.State().Queued == 2 && s2.State().Queued == 2 })

	a := do(t, admin, "POST", "/admin/cancel", `{"id":5,"attempt":"hedge"}`)
	var res CancelResult
	if err := json.Unmarshal([]byte(a.body), &res); err != nil || a.status != 200 {
		t.Fatalf("cancel: %d %s", a.status, a.body)
	}
	if want := (CancelResult{ID: 5, Attempt: "hedge", Cancelled: 2, Backends: 3, Failed: 1}); res != want {
		t.Errorf("cancel: %+v, want %+v", res, want)
	}
	if a.took < 30*time.Millisecond {
		t.Errorf("answered after %v, before the 30ms hop", a.took)
	}
	if k1, k2 := s1.State().QueuedKinds, s2.State().QueuedKinds; !reflect.DeepEqual(k1, []string{"first"}) ||
		!reflect.DeepEqual(k2, []string{"hedge"}) {
		t.Errorf("still queued: s1 %v, s2 %v; want request 5's first on s1 and request 6's hedge on s2", k1, k2)
	}
	var codes []int
	for _, ch := range answers {
		codes = append(codes, <-ch)
	}
	// In order: 1 and 2 in service, 5 first, 5 hedge x2 (cancelled), 6 hedge.
	if want := []int{200, 200, 200, 503, 503, 200}; !reflect.DeepEqual(codes, want) {
		t.Errorf("answers %v, want %v", codes, want)
	}
	if a := do(t, admin, "POST", "/admin/cancel", `{"id":5}`); !strings.Contains(a.body, `{"id":5,"cancelled":0,"backends":3,"failed":1}`) {
		t.Errorf("cancel without attempt: %d %s", a.status, a.body)
	}
}

func TestCancelBadInput(t *testing.T) {
	f := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f)
	for _, tc := range []struct{ body, field string }{
		{`{}`, "id: required"},
		{`{"attempt":"hedge"}`, "id: required"},
		{`{"id":"5"}`, "id"},
		{`{"id":5,"attempt":"loser"}`, "attempt"},
		{`{"id":5,"attempt":""}`, "attempt"},
		{`{"id":5,"kind":"hedge"}`, `unknown field \"kind\"`},
		{`{"id":`, "bad JSON"},
	} {
		a := c.call(t, "POST", "/admin/cancel", tc.body)
		var e wire.ErrorBody
		if err := json.Unmarshal([]byte(a.body), &e); err != nil || a.status != 400 || e.Code != 400 {
			t.Errorf("%s: %d %s, want 400 JSON", tc.body, a.status, a.body)
			continue
		}
		if !strings.Contains(a.body, tc.field) {
			t.Errorf("%s: error %q does not name %q", tc.body, e.Error, tc.field)
		}
	}
	if a := c.call(t, "GET", "/admin/cancel", ""); a.status != 405 {
		t.Errorf("GET /admin/cancel: %d, want 405", a.status)
	}
	if f.hits.Load() != 0 {
		t.Errorf("bad input reached the backend %d times", f.hits.Load())
	}
}
