package backend

import (
	"context"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
)

func TestAdminBadInputChangesNothing(t *testing.T) {
	cases := []struct{ path, body, field string }{
		{"/admin/drill", `{"action":"slow","speed":-1}`, "speed"},
		{"/admin/drill", `{"action":"slow"}`, "speed"},
		{"/admin/drill", `{"action":"slow","speed":0.5,"sped":1}`, "sped"},
		{"/admin/drill", `{"action":"slow","speed":`, "JSON"},
		{"/admin/drill", `{"action":"gc","pause":"soon"}`, "pause"},
		{"/admin/drill", `{"action":"gc","pause":"-1s"}`, "pause"},
		{"/admin/drill", `{"action":"errors","share":1.5}`, "share"},
		{"/admin/drill", `{"action":"fail","now":true}`, "now"},
		{"/admin/drill", `{"action":"explode"}`, "explode"},
		{"/admin/drill", `{"action":"rate","rate":5}`, "not a drill on a server"},
		{"/admin/drill", `{"action":"slow","speed":0.5,"share":0.1}`, "share"},
		{"/admin/drill", `{"action":"kill","target":"s9"}`, "not \"s9\""},
		{"/admin/drill", `{"action":"kill","for":"30s"}`, "for"},
		{"/admin/drill", `{"action":"kill","at":"1s"}`, "at"},
		{"/admin/queue", `{"discipline":"xyz"}`, "discipline"},
		{"/admin/queue", `{"capacity":-3,"discipline":"lifo"}`, "capacity"},
		{"/admin/queue", `{"capacity":"ten"}`, "capacity"},
		{"/admin/limiter", `{"kind":"magic"}`, "kind"},
		{"/admin/limiter", `{"kind":"aimd","min":50,"max":10}`, "max"},
		{"/admin/set", `{"path":"servers.queue.capacity","value":"-1"}`, "servers"},
		{"/admin/set", `{"path":"servers.nope","value":"1"}`, "nope"},
		{"/admin/set", `{"path":"servers.queue.capacity"}`, "value"},
		{"/admin/set", `{"path":"servers[0].name","value":"web"}`, "s1"},
		{"/admin/cancel", `{}`, "id"},
	}
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		before := c.state()
		for _, tc := range cases {
			r := c.admin("POST", tc.path, tc.body)
			if r.code != 400 {
				t.Errorf("%s %s: %d %s, want 400", tc.path, tc.body, r.code, r.body)
				continue
			}
			if e := errorBody(t, r); !contains(e.Error, tc.field) {
				t.Errorf("%s %s: reason %q does not name %q", tc.path, tc.body, e.Error, tc.field)
			}
		}
		after := c.state()
		before.AtUnixNs, after.AtUnixNs = 0, 0
		if !reflect.DeepEqual(before, after) {
			t.Errorf("state changed:\n%+v\n%+v", before, after)
		}
	})
}

// A wrong method is a 405 naming the methods its path takes in the Allow
// header (it had none, and /healthz took any method), an unknown path a
// 404, both JSON {"error", "code"} as every admin API's errors.
func TestAdminRoutes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		for _, tc := range []struct {
			method, path string
			code         int
			allow        string
		}{
			{"GET", "/healthz", 200, ""}, {"GET", "/admin/nope", 404, ""}, {"GET", "/admin/drill", 405, "POST"},
			{"POST", "/admin/state", 405, "GET, HEAD"}, {"GET", "/metrics", 200, ""}, {"POST", "/metrics", 405, "GET, HEAD"},
			{"DELETE", "/healthz", 405, "GET, HEAD"}, {"PUT", "/load", 405, "GET, HEAD"},
		} {
			r := c.admin(tc.method, tc.path, "")
			if r.code != tc.code || r.header("Allow") != tc.allow {
				t.Errorf("%s %s: %d, Allow %q; want %d, Allow %q", tc.method, tc.path, r.code, r.header("Allow"), tc.code, tc.allow)
			}
			if tc.code >= 400 {
				if e := errorBody(t, r); e.Error == "" || e.Code != tc.code {
					t.Errorf("%s %s: body %s, want {\"error\": ..., \"code\": %d}", tc.method, tc.path, r.body, tc.code)
				}
			}
		}
	})
}

func TestLoadAndState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		chans := []<-chan result{}
		for _, kind := range []string{"first", "retry", "hedge"} {
			chans = append(chans, async(func() result { return c.data("GET", "/", wire.HWork, "50ms", wire.HAttempt, kind) }))
			synctest.Wait()
		}
		var l Load
		mustJSON(t, c.admin("GET", "/load", "").body, &l)
		if !l.Up || l.Queued != 2 || l.InService != 1 || l.AtUnixNs != time.Now().UnixNano() {
			t.Errorf("load %+v, want up, 2 queued, 1 in service, at now", l)
		}
		st := c.state()
		if st.Busy != 1 || !reflect.DeepEqual(st.QueuedKinds, []string{"retry", "hedge"}) || st.Counters.Arrived != 3 {
			t.Errorf("state busy %d kinds %v arrived %d", st.Busy, st.QueuedKinds, st.Counters.Arrived)
		}
		for _, ch := range chans {
			<-ch
		}
	})
}

func TestQueueAndLimiterActions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		var st State
		c.post("/admin/queue", `{"capacity":20,"discipline":"lifo","drop_expired":true}`, &st)
		if st.Queue != (QueueState{Capacity: 20, Discipline: "lifo", DropExpired: true}) {
			t.Errorf("queue %+v", st.Queue)
		}
		c.post("/admin/queue", `{"discipline":"fifo"}`, &st)
		if st.Queue != (QueueState{Capacity: 20, Discipline: "fifo", DropExpired: true}) {
			t.Errorf("queue after a partial change %+v", st.Queue)
		}
		c.post("/admin/limiter", `{"kind":"aimd","initial":2,"min":1,"max":200}`, &st)
		if st.Limiter.Kind != "aimd" || st.Limiter.Limit != 2 {
			t.Errorf("limiter %+v", st.Limiter)
		}
		rs := sendInOrder(c, "20ms", "20ms", "20ms")
		if rs[2].code != 503 || rs[2].header(wire.HReason) != "limit" {
			t.Errorf("third request over a limit of 2: %d %q", rs[2].code, rs[2].header(wire.HReason))
		}
		c.post("/admin/limiter", `{"kind":"none"}`, &st)
		if st.Limiter != (LimiterState{Kind: "none"}) {
			t.Errorf("limiter after none %+v", st.Limiter)
		}
	})
}

func TestErrorsAndRecover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t, "servers.errors", "0.1"))
		c := client{t, n}
		var st State
		c.post("/admin/drill", `{"action":"errors","share":1}`, &st)
		if st.Errors != 1 || st.ConfiguredErrors != 0.1 {
			t.Errorf("errors %g configured %g", st.Errors, st.ConfiguredErrors)
		}
		if r := c.data("GET", "/"); r.code != 500 || r.header(wire.HReason) != "error" {
			t.Errorf("with share 1: %d %q", r.code, r.header(wire.HReason))
		}
		c.post("/admin/drill", `{"action":"fail"}`, nil)
		c.post("/admin/drill", `{"action":"recover"}`, &st)
		if st.Fail || st.Errors != 0.1 {
			t.Errorf("after recover fail %v errors %g, want false and the configured 0.1", st.Fail, st.Errors)
		}
	})
}

func TestSetAppliesServerSettings(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		var res SetResult
		c.post("/admin/set", `{"path":"servers.queue.capacity","value":"20"}`, &res)
		if !reflect.DeepEqual(res.Applied, []string{"queue"}) {
			t.Errorf("set capacity: %+v", res)
		}
		if q := c.state().Queue; q.Capacity != 20 {
			t.Errorf("queue %+v after set", q)
		}
		c.post("/admin/set", `{"path":"servers[0].workers","value":4}`, &res)
		if !reflect.DeepEqual(res.Applied, []string{"workers"}) {
			t.Errorf("set workers: %+v", res)
		}
		if w := c.state().Workers; w != 4 {
			t.Errorf("%d workers after set", w)
		}
		c.post("/admin/set", `{"path":"servers.cache.size","value":"500"}`, &res)
		if !reflect.DeepEqual(res.Applied, []string{"cache.size"}) {
			t.Errorf("set cache.size: %+v", res)
		}
		if r := c.admin("POST", "/admin/set", `{"path":"servers.count","value":"3"}`); r.code != 400 ||
			!contains(string(r.body), "servers.count: is fixed for a run (") {
			t.Errorf("set servers.count: %d %s, want 400: fixed for a run", r.code, r.body)
		}
		c.post("/admin/set", `{"path":"clients.rate","value":"300"}`, &res)
		if len(res.Applied) != 0 {
			t.Errorf("a path outside servers changed this server: %+v", res)
		}
		c.post("/admin/set", `{"path":"network.hop","value":"7ms"}`, &res)
		if !reflect.DeepEqual(res.Applied, []string{"hop"}) || c.state().HopMs != 7 {
			t.Errorf("set network.hop: %+v, hop %g ms", res, c.state().HopMs)
		}
		c.post("/admin/set", `{"path":"servers.speed","value":"0.5"}`, &res)
		if st := c.state(); st.Speed != 0.5 || st.ConfiguredSpeed != 0.5 {
			t.Errorf("speed %g configured %g after set", st.Speed, st.ConfiguredSpeed)
		}
	})
}

// The server settings the simulator's set event carries out
// (assemble.ServerSettings) are carried out here too: a lower
// max_outstanding rejects the arrival over it, a queue timeout ends the
// job that waited too long, a slower error_time holds a fast error longer.
func TestSetCarriesOutOutstandingTimeoutAndErrorTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t)) // one worker, an unbounded queue
		c := client{t, n}
		var res SetResult
		twoAtOnce := func() (first, second result) {
			a := async(func() result { return c.data("GET", "/", wire.HWork, "50ms", wire.HRequest, "1") })
			synctest.Wait()
			second = c.data("GET", "/", wire.HWork, "1ms", wire.HRequest, "2")
			return <-a, second
		}
		c.post("/admin/set", `{"path":"servers.max_outstanding","value":1}`, &res)
		if !reflect.DeepEqual(res.Applied, []string{"max_outstanding"}) {
			t.Errorf("set max_outstanding: %+v", res)
		}
		if first, second := twoAtOnce(); first.code != 200 || second.code != 503 || second.header(wire.HReason) != "max-outstanding" {
			t.Errorf("max_outstanding 1: %d, then %d %q; want 200, then 503 max-outstanding", first.code, second.code, second.header(wire.HReason))
		}
		c.post("/admin/set", `{"path":"servers.max_outstanding","value":0}`, nil)
		c.post("/admin/set", `{"path":"servers.queue_timeout","value":"10ms"}`, &res)
		if !reflect.DeepEqual(res.Applied, []string{"queue_timeout"}) {
			t.Errorf("set queue_timeout: %+v", res)
		}
		if first, second := twoAtOnce(); first.code != 200 || second.code != 503 || second.header(wire.HReason) != "queue-timeout" {
			t.Errorf("queue_timeout 10ms behind a 50ms job: %d, then %d %q; want 200, then 503 queue-timeout", first.code, second.code, second.header(wire.HReason))
		}
		c.post("/admin/set", `{"path":"servers.errors","value":1}`, nil)
		fast := c.data("GET", "/", wire.HRequest, "3")
		c.post("/admin/set", `{"path":"servers.error_time","value":"40ms"}`, &res)
		if !reflect.DeepEqual(res.Applied, []string{"error_time"}) {
			t.Errorf("set error_time: %+v", res)
		}
		slow := c.data("GET", "/", wire.HRequest, "4")
		if fast.code != 500 || slow.code != 500 || slow.took-fast.took != 39*time.Millisecond {
			t.Errorf("errors with error_time 1ms then 40ms: %d in %v, %d in %v; want two 500s 39ms apart", fast.code, fast.took, slow.code, slow.took)
		}
	})
}

func TestAdminCancelRemovesQueuedJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		first := async(func() result { return c.data("GET", "/", wire.HWork, "50ms", wire.HRequest, "41") })
		synctest.Wait()
		second := async(func() result { return c.data("GET", "/", wire.HWork, "50ms", wire.HRequest, "42") })
		synctest.Wait()
		var res struct{ Cancelled int }
		c.post("/admin/cancel", `{"id":42}`, &res)
		r := <-second
		if res.Cancelled != 1 || r.code != 503 || r.header(wire.HReason) != "cancelled" {
			t.Errorf("cancel: %+v, request %d %q", res, r.code, r.header(wire.HReason))
		}
		c.post("/admin/cancel", `{"id":41}`, &res) // in service: left alone
		if r := <-first; res.Cancelled != 0 || r.code != 200 {
			t.Errorf("cancel in service: %+v, request %d", res, r.code)
		}
	})
}

func TestKillAndRestartInMemory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		chans := []<-chan result{}
		for range 2 {
			chans = append(chans, async(func() result { return c.data("GET", "/", wire.HWork, "1s") }))
			synctest.Wait()
		}
		var st State
		c.post("/admin/drill", `{"action":"kill"}`, &st)
		if st.Up || st.Listening || st.Counters.Lost != 2 {
			t.Errorf("after kill: up %v listening %v lost %d", st.Up, st.Listening, st.Counters.Lost)
		}
		for i, ch := range chans {
			if r := <-ch; r.err == nil {
				t.Errorf("request %d got %d after a kill, want a connection error", i+1, r.code)
			}
		}
		if r := c.data("GET", "/"); r.err == nil {
			t.Errorf("a new request to a killed server got %d", r.code)
		}
		c.post("/admin/drill", `{"action":"restart"}`, &st)
		if r := c.data("GET", "/", wire.HWork, "1ms"); !st.Up || r.code != 200 {
			t.Errorf("after restart: up %v, request %d %v", st.Up, r.code, r.err)
		}
	})
}

func TestShutdownDrainsThenDropsTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b, n := startMem(t, labWith(t))
		c := client{t, n}
		short := async(func() result { return c.data("GET", "/", wire.HWork, "100ms") })
		synctest.Wait()
		long := async(func() result { return c.data("GET", "/", wire.HWork, "10s") })
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		// fasthttp's Shutdown polls its connections every 100ms.
		if err := b.Shutdown(ctx); err != nil || time.Since(start) < time.Second || time.Since(start) > 1500*time.Millisecond {
			t.Errorf("shutdown: %v after %v, want nil just after the 1s drain", err, time.Since(start))
		}
		if r := <-short; r.code != 200 {
			t.Errorf("request done within the drain time: %d %v", r.code, r.err)
		}
		if r := <-long; r.err == nil {
			t.Errorf("request still queued at the end of the drain: %d, want a connection error", r.code)
		}
	})
}
