package lb

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/wire"
)

func TestRoundRobinSpreadsAcrossThree(t *testing.T) {
	f1, f2, f3 := startFake(t, "s1"), startFake(t, "s2"), startFake(t, "s3")
	_, c := startLB(t, testLab(t, "balancers.algorithm", "round-robin"), f1, f2, f3)
	for range 30 {
		a := c.get(t, "/anything")
		if a.status != 200 || a.balancer != "lbt" || !strings.Contains(a.body, a.server) {
			t.Fatalf("answer %+v", a)
		}
	}
	for _, f := range []*fake{f1, f2, f3} {
		if n := f.hits.Load(); n != 10 {
			t.Errorf("%s got %d of 30 requests, want 10", f.name, n)
		}
	}
	s := c.state(t)
	if s.Picks != 30 || s.backend("s2").Picks != 10 || s.backend("s2").Share < 0.33 || s.backend("s2").Share > 0.34 {
		t.Errorf("state picks %d, s2 %+v", s.Picks, s.backend("s2"))
	}
}

func TestP2CMovesTrafficAwayFromSlowServer(t *testing.T) {
	f1, f2, f3 := startFake(t, "s1"), startFake(t, "s2"), startFake(t, "s3")
	f2.delay.Store(int64(40 * time.Millisecond))
	for _, f := range []*fake{f1, f3} {
		f.delay.Store(int64(time.Millisecond))
	}
	_, c := startLB(t, testLab(t, "balancers.algorithm", "p2c"), f1, f2, f3)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 40 {
				if a := c.get(t, "/"); a.status != 200 {
					t.Errorf("status %d", a.status)
				}
			}
		})
	}
	wg.Wait()
	share := float64(f2.hits.Load()) / 320
	if share >= 1.0/6 {
		t.Errorf("slow server got %.1f%% of requests, want under half an even share (16.7%%)", 100*share)
	}
	t.Logf("slow server share %.1f%%", 100*share)
}

func TestAttemptTimeoutAnswers504AndServerKeepsWorking(t *testing.T) {
	f := startFake(t, "s1")
	f.delay.Store(int64(300 * time.Millisecond))
	_, c := startLB(t, testLab(t, "balancers.timeout", "50ms"), f)
	a := c.get(t, "/slow")
	if a.status != 504 || a.server != "s1" || a.balancer != "lbt" || !strings.Contains(a.body, `"code":504`) {
		t.Fatalf("answer %+v, want 504 from s1", a)
	}
	if a.took < 50*time.Millisecond || a.took > 250*time.Millisecond {
		t.Errorf("504 after %v, want about 50ms", a.took)
	}
	eventually(t, "the server finishing the abandoned request", func() bool { return f.completed.Load() == 1 })
	if b := c.state(t).backend("s1"); b.Outstanding != 0 || b.EWMAMs < 49 {
		t.Errorf("after timeout: %+v", b)
	}
}

func TestClosedBackendAnswers502AtOnce(t *testing.T) {
	f1, f2, f3 := startFake(t, "s1"), startFake(t, "s2"), startFake(t, "s3")
	_, c := startLB(t, testLab(t, "balancers.algorithm", "round-robin"), f1, f2, f3)
	for range 6 { // pool a connection to each
		c.get(t, "/")
	}
	f2.close()
	counts := map[int]int{}
	for range 30 {
		a := c.get(t, "/")
		counts[a.status]++
		if a.status == 502 && (a.server != "s2" || a.took > 250*time.Millisecond) {
			t.Errorf("502 %+v, want from s2 at once", a)
		}
	}
	if counts[502] != 10 || counts[200] != 20 {
		t.Errorf("statuses %v, want 10 x 502 (s2) and 20 x 200", counts)
	}
}

func TestHashKeyAndExclude(t *testing.T) {
	f1, f2, f3 := startFake(t, "s1"), startFake(t, "s2"), startFake(t, "s3")
	_, c := startLB(t, testLab(t, "balancers.algorithm", "ring-hash"), f1, f2, f3)
	owner := c.get(t, "/", wire.HKey, "42").server
	for range 5 {
		if s := c.get(t, "/", wire.HKey, "42").server; s != owner {
			t.Fatalf("key 42 went to %s then %s", owner, s)
		}
	}
	if s := c.get(t, "/", wire.HKey, "42", wire.HExclude, owner).server; s == owner || s == "" {
		t.Errorf("hedge excluding %s went to %q", owner, s)
	}
	byPath := c.get(t, "/cart/7").server
	for range 3 {
		if s := c.get(t, "/cart/7").server; s != byPath {
			t.Errorf("path key went to %s then %s", byPath, s)
		}
	}
}

func TestNoEligibleServerAnswers503(t *testing.T) {
	f := startFake(t, "s1")
	_, c := startLB(t, testLab(t), f)
	c.call(t, "DELETE", "/admin/backends/s1", "")
	a := c.get(t, "/")
	if a.status != 503 || !strings.Contains(a.body, "no eligible server") || a.balancer != "lbt" {
		t.Errorf("answer %+v", a)
	}
}

// Pick numbers come from X-Lab-Request and X-Lab-Try, as the loadgen and
// the simulator number attempts: a retry or hedge draws what it draws in
// the simulator, however the requests interleave.
func TestPickNumberFromHeaders(t *testing.T) {
	l, err := New(Config{Lab: testLab(t), Backends: []BackendSpec{{Name: "s1", Addr: "127.0.0.1:9"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		try, kind string
		want      uint64
	}{
		{"", "", policy.PickNumber(7, 1)},
		{"1", "first", policy.PickNumber(7, 1)},
		{"3", "retry", policy.PickNumber(7, 3)},
		{"2", "hedge", policy.PickNumber(7, 2)},
	} {
		for range 2 { // the same both times: no counter involved
			var ctx fasthttp.RequestCtx
			ctx.Request.Header.Set(wire.HRequest, "7")
			if c.try != "" {
				ctx.Request.Header.Set(wire.HTry, c.try)
			}
			if c.kind != "" {
				ctx.Request.Header.Set(wire.HAttempt, c.kind)
			}
			if req, _ := l.request(&ctx); req.Seq != c.want {
				t.Errorf("try %q kind %q: pick %d, want %d", c.try, c.kind, req.Seq, c.want)
			}
		}
	}
	// A retry that does not say which attempt it is must not repeat the
	// first attempt's draw.
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.Set(wire.HRequest, "7")
	ctx.Request.Header.Set(wire.HAttempt, "retry")
	if req, _ := l.request(&ctx); req.Seq == policy.PickNumber(7, 1) {
		t.Error("an unnumbered retry drew the first attempt's pick")
	}
}

// The lb lowers X-Lab-Deadline to its own per-attempt deadline (the
// simulator's balancer does), and never raises it.
func TestTightenDeadline(t *testing.T) {
	var h fasthttp.RequestHeader
	at := time.Unix(0, 5000)
	tightenDeadline(&h, at)
	if got := string(h.Peek(wire.HDeadline)); got != "5000" {
		t.Fatalf("no client deadline: %q, want 5000", got)
	}
	h.Set(wire.HDeadline, "9000")
	tightenDeadline(&h, at)
	if got := string(h.Peek(wire.HDeadline)); got != "5000" {
		t.Fatalf("a later client deadline: %q, want 5000", got)
	}
	h.Set(wire.HDeadline, "3000")
	tightenDeadline(&h, at)
	if got := string(h.Peek(wire.HDeadline)); got != "3000" {
		t.Fatalf("an earlier client deadline was raised to %q", got)
	}
}
