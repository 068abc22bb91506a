package backend

import (
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
)

// The timer-driven service path runs in a synctest bubble over in-memory
// listeners: the fake clock makes every duration exact and the test instant.

func TestServiceTimeAndHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		r := c.data("GET", "/item", wire.HWork, "20ms", wire.HRequest, "7", wire.HAttempt, "retry", wire.HKey, "42")
		if r.err != nil || r.code != 200 {
			t.Fatalf("got %d %v %s", r.code, r.err, r.body)
		}
		if r.took != 25*time.Millisecond {
			t.Errorf("took %v, want 20ms work + 5ms hop", r.took)
		}
		want := map[string]string{wire.HServer: "s1", wire.HQueueMs: "0", wire.HServiceMs: "20",
			wire.HHit: "false", wire.HLoadMetrics: ""} // the load report only when asked for
		for k, v := range want {
			if got := r.header(k); got != v {
				t.Errorf("header %s = %q, want %q", k, got, v)
			}
		}
		var body wire.Reply
		mustJSON(t, r.body, &body)
		wantBody := wire.Reply{Server: "s1", Request: "7", Attempt: "retry", Status: 200, ServiceMs: 20}
		if body != wantBody {
			t.Errorf("body %+v, want %+v", body, wantBody)
		}
	})
}

func TestDrawnWorkWithoutHeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab := labWith(t, "clients.work.dist", "constant", "clients.work.mean", "12ms")
		_, n := startMem(t, lab)
		r := client{t, n}.data("GET", "/")
		if r.code != 200 || r.header(wire.HServiceMs) != "12" || r.took != 17*time.Millisecond {
			t.Fatalf("got %d service %s took %v, want 12ms drawn from the lab's constant work", r.code, r.header(wire.HServiceMs), r.took)
		}
	})
}

// sendInOrder starts one request per work value, each after the previous
// one has arrived, and returns their results in sending order.
func sendInOrder(c client, works ...string) []result {
	chans := make([]<-chan result, len(works))
	for i, w := range works {
		id := strconv.Itoa(i + 1)
		chans[i] = async(func() result {
			return c.data("GET", "/", wire.HWork, w, wire.HRequest, id, wire.HLoadMetricsFormat, "text")
		})
		synctest.Wait()
	}
	out := make([]result, len(works))
	for i, ch := range chans {
		out[i] = <-ch
	}
	return out
}

func TestFIFOWithOneWorker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		rs := sendInOrder(client{t, n}, "10ms", "10ms", "10ms")
		for i, r := range rs {
			wantQueue := strconv.Itoa(10 * i)
			if r.code != 200 || r.header(wire.HQueueMs) != wantQueue {
				t.Errorf("request %d: %d queue %s ms, want queue %s", i+1, r.code, r.header(wire.HQueueMs), wantQueue)
			}
			if want := time.Duration(10*(i+1)+5) * time.Millisecond; r.took != want {
				t.Errorf("request %d took %v, want %v", i+1, r.took, want)
			}
		}
	})
}

func TestLIFOServesNewestFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t, "servers.queue.discipline", "lifo"))
		rs := sendInOrder(client{t, n}, "10ms", "10ms", "10ms")
		if rs[2].header(wire.HQueueMs) != "10" || rs[1].header(wire.HQueueMs) != "20" {
			t.Errorf("queue ms %s, %s; want the newest (3rd) served before the 2nd",
				rs[1].header(wire.HQueueMs), rs[2].header(wire.HQueueMs))
		}
	})
}

func TestSlowQuartersTheSpeed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		var st State
		c.post("/admin/drill", `{"action":"slow","target":"s1","speed":0.25}`, &st)
		if st.Speed != 0.25 || st.ConfiguredSpeed != 1 {
			t.Fatalf("state speed %g configured %g", st.Speed, st.ConfiguredSpeed)
		}
		r := c.data("GET", "/", wire.HWork, "20ms")
		if r.header(wire.HServiceMs) != "80" || r.took != 85*time.Millisecond {
			t.Errorf("service %s ms took %v, want 80ms (4x) + hop", r.header(wire.HServiceMs), r.took)
		}
		c.post("/admin/drill", `{"action":"restore"}`, &st)
		if r := c.data("GET", "/", wire.HWork, "20ms"); r.header(wire.HServiceMs) != "20" {
			t.Errorf("after restore service %s ms, want 20", r.header(wire.HServiceMs))
		}
	})
}

func TestGCPauseStretchesService(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		ch := async(func() result { return c.data("GET", "/", wire.HWork, "100ms") })
		time.Sleep(10 * time.Millisecond)
		c.post("/admin/drill", `{"action":"gc","pause":"50ms"}`, nil)
		if r := <-ch; r.header(wire.HServiceMs) != "150" {
			t.Errorf("service %s ms, want 100ms work + 50ms pause", r.header(wire.HServiceMs))
		}
	})
}

func TestFailAnswers500Fast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		c.post("/admin/drill", `{"action":"fail"}`, nil)
		r := c.data("GET", "/", wire.HWork, "50ms")
		if r.code != 500 || r.header(wire.HReason) != "fail" || r.took != 6*time.Millisecond {
			t.Fatalf("got %d %q in %v, want 500 fail after 1ms error time + 5ms hop", r.code, r.header(wire.HReason), r.took)
		}
		if e := errorBody(t, r); e.Error != "fail" {
			t.Errorf("error body %+v", e)
		}
		if h := c.data("GET", "/healthz"); h.code != 500 {
			t.Errorf("healthz in fail mode: %d, want 500", h.code)
		}
		c.post("/admin/drill", `{"action":"recover"}`, nil)
		if h := c.data("GET", "/healthz"); h.code != 200 || h.took != 0 {
			t.Errorf("healthz after recover: %d in %v, want 200 at once", h.code, h.took)
		}
	})
}

func TestBoundedQueueFullRejectsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t, "servers.queue.capacity", "1"))
		rs := sendInOrder(client{t, n}, "50ms", "50ms", "50ms")
		if rs[0].code != 200 || rs[1].code != 200 {
			t.Fatalf("first two: %d %d, want 200", rs[0].code, rs[1].code)
		}
		r := rs[2]
		if r.code != 503 || r.header(wire.HReason) != "queue-full" || r.took != 5*time.Millisecond {
			t.Errorf("third: %d %q in %v, want 503 queue-full after the hop only", r.code, r.header(wire.HReason), r.took)
		}
		if rep, err := wire.ParseLoad([]byte(r.header(wire.HLoadMetrics))); err != nil || rep.Queued != 1 || rep.InService != 1 {
			t.Errorf("load report %q: %+v, %v; want 1 queued 1 in service", r.header(wire.HLoadMetrics), rep, err)
		}
		errorBody(t, r)
	})
}

func TestDropExpiredUsesTheDeadlineHeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t, "servers.drop_expired", "true"))
		c := client{t, n}
		first := async(func() result { return c.data("GET", "/", wire.HWork, "50ms") })
		synctest.Wait()
		deadline := time.Now().Add(20 * time.Millisecond).UnixNano()
		r := c.data("GET", "/", wire.HWork, "10ms", wire.HDeadline, strconv.FormatInt(deadline, 10))
		if r.code != 503 || r.header(wire.HReason) != "expired" || r.took != 55*time.Millisecond {
			t.Errorf("got %d %q in %v, want 503 expired when the worker frees at 50ms", r.code, r.header(wire.HReason), r.took)
		}
		<-first
	})
}

func TestBadRequestHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		for _, h := range [][]string{{wire.HWork, "soon"}, {wire.HWork, "-1ms"}, {wire.HDeadline, "yesterday"}} {
			r := c.data("GET", "/", h...)
			if r.code != 400 || !contains(errorBody(t, r).Error, h[0]) {
				t.Errorf("%s: %s: got %d %s, want 400 naming the header", h[0], h[1], r.code, r.body)
			}
		}
	})
}
