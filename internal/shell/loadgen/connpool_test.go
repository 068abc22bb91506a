package loadgen

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/conns"
)

func poolGet(p *connPool, addr string, deadline time.Time) (int, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI("http://" + addr + "/")
	err := p.do(req, resp, deadline)
	return resp.StatusCode(), err
}

// An endpoint's pool never holds more connections than its bound: ten
// attempts at once over two connections all get their answer, the extra
// ones waiting for a connection given back; an attempt whose deadline
// passes while it waits gets fasthttp.ErrNoFreeConns (the error the loop
// warns of) and opens nothing.
func TestConnPoolBoundsAndWaits(t *testing.T) {
	addr, cl := foreignServer(t, func(ctx *fasthttp.RequestCtx, _ int) { time.Sleep(20 * time.Millisecond) })
	quit := make(chan struct{})
	defer close(quit)
	p := newConnPool(addr, &conns.Dialer{}, 2, quit)
	defer p.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Go(func() {
			code, err := poolGet(p, addr, time.Now().Add(20*time.Second))
			if err == nil && code != 200 {
				err = fmt.Errorf("status %d", code)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if a, open := cl.accepted.Load(), p.openConns(); a > 2 || open > 2 || a == 0 {
		t.Fatalf("%d connections accepted, %d open: the bound is 2", a, open)
	}

	// Both connections busy for longer than the third attempt's deadline.
	slow := make(chan struct{})
	addr2, cl2 := foreignServer(t, func(ctx *fasthttp.RequestCtx, _ int) { <-slow })
	p2 := newConnPool(addr2, &conns.Dialer{}, 2, quit)
	defer p2.CloseIdleConnections()
	for range 2 {
		wg.Go(func() { _, _ = poolGet(p2, addr2, time.Now().Add(20*time.Second)) })
	}
	for cl2.accepted.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if _, err := poolGet(p2, addr2, time.Now().Add(30*time.Millisecond)); !errors.Is(err, fasthttp.ErrNoFreeConns) {
		t.Errorf("a wait for a connection past its deadline: %v, want ErrNoFreeConns", err)
	}
	p2.mu.Lock()
	for i, w := range p2.waiters[:cap(p2.waiters)] { // what the list's array still holds
		if w != nil {
			t.Errorf("the waiters' list still holds the channel of the waiter that gave up, in slot %d of %d", i, cap(p2.waiters))
		}
	}
	p2.mu.Unlock()
	close(slow)
	wg.Wait()
	if a, open := cl2.accepted.Load(), p2.openConns(); a != 2 || open != 2 {
		t.Errorf("%d connections accepted, %d open, want 2 and 2 (the waiter opened none)", a, open)
	}
}

// A connection that fails, or that the answer says to close, leaves the
// pool, and its place goes to the next attempt, which dials a new one; the
// most recently used idle connection is taken first; the reaper closes
// connections idle for idleConnFor, and CloseIdleConnections every idle one.
func TestConnPoolClosesAndReaps(t *testing.T) {
	addr, cl := foreignServer(t, func(ctx *fasthttp.RequestCtx, n int) {
		if n == 0 {
			ctx.SetConnectionClose()
		}
	})
	quit := make(chan struct{})
	defer close(quit)
	p := newConnPool(addr, &conns.Dialer{}, 1, quit)
	for i := range 3 {
		if _, err := poolGet(p, addr, time.Now().Add(10*time.Second)); err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	if a := cl.accepted.Load(); a != 2 {
		t.Fatalf("%d connections accepted, want 2: the first closed by its answer, the second kept for the third attempt", a)
	}
	// LIFO: of two idle connections, the one given back last goes first.
	p.max = 2
	a, _ := p.acquire(time.Now().Add(time.Second))
	b, err := p.acquire(time.Now().Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	p.release(a)
	p.release(b)
	if c, _ := p.acquire(time.Now().Add(time.Second)); c != b {
		t.Errorf("the pool took the older idle connection first")
	} else {
		p.release(c)
	}
	for range idleTicks - 1 {
		p.reapIdle(false)
	}
	if n := p.openConns(); n != 2 {
		t.Fatalf("%d open after %d ticks, want both still open", n, idleTicks-1)
	}
	p.reapIdle(false)
	if n := p.openConns(); n != 0 {
		t.Errorf("%d open after idling %v, want none", n, idleConnFor)
	}
	for i, c := range p.idle[:cap(p.idle)] { // what the slice's array still holds
		if c.p != nil {
			t.Errorf("the idle list's array still holds a closed connection in slot %d of %d", i, cap(p.idle))
		}
	}
	if _, err := poolGet(p, addr, time.Now().Add(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	p.CloseIdleConnections()
	if n := p.openConns(); n != 0 {
		t.Errorf("%d open after CloseIdleConnections", n)
	}
	// A refused dial frees its place at once.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	pd := newConnPool(dead, &conns.Dialer{}, 1, quit)
	for range 2 {
		if _, err := poolGet(pd, dead, time.Now().Add(time.Second)); err == nil || errorKind(err) != report.ErrRefused {
			t.Fatalf("a closed port: %v (%s), want refused", err, errorKind(err))
		}
	}
	if n := pd.openConns(); n != 0 {
		t.Errorf("%d counted open after refused dials", n)
	}
}

// As a load tool (--plain), the loadgen opens before its clock starts the
// connections its first requests want, as wrk does: a user's worth in a
// closed loop, 10 ms of arrivals in an open one (within the bound), so the
// first requests do not each pay a dial. A closed port fails the warm-up
// quietly: the requests meet the refusal and report it.
func TestPlainRunOpensItsConnectionsFirst(t *testing.T) {
	for _, c := range []struct {
		name string
		set  map[string]string
		conn int
		want int
	}{
		{"closed", map[string]string{"clients.mode": "closed", "clients.users": "6", "clients.think": "0s"}, 256, 6},
		{"open", map[string]string{"clients.mode": "open", "clients.rate": "1500"}, 256, 15},
		{"bound", map[string]string{"clients.mode": "open", "clients.rate": "1500"}, 4, 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, cl := foreignServer(t, func(ctx *fasthttp.RequestCtx, _ int) {})
			c.set["duration"] = "200ms"
			lab := testLab(t, c.set)
			rep, r := runLive(t, Config{Lab: lab, Targets: plainTarget(addr), HTTP: HTTP{Plain: true}, Connections: c.conn})
			run := rep.Runs[0]
			checkAccounted(t, run)
			if r.l.warmed != c.want || cl.accepted.Load() < int64(c.want) || cl.accepted.Load() > int64(c.conn) {
				t.Errorf("%d connections opened before the start, %d accepted in all (bound %d), want %d first",
					r.l.warmed, cl.accepted.Load(), c.conn, c.want)
			}
			if run.Succeeded != run.Requests || run.Requests == 0 {
				t.Errorf("want every request served: %s", describe(run))
			}
		})
	}
	t.Run("refused", func(t *testing.T) {
		lab := testLab(t, map[string]string{"clients.rate": "200", "duration": "100ms"})
		rep, r := runLive(t, Config{Lab: lab, Targets: plainTarget(closedPort(t)), HTTP: HTTP{Plain: true}})
		if r.l.warmed != 0 || rep.Runs[0].Load.ErrorKinds[report.ErrRefused] == 0 {
			t.Errorf("warmed %d against a closed port, errors %v: want none warmed, the refusals reported", r.l.warmed, rep.Runs[0].Load.ErrorKinds)
		}
	})
}
