package loadgen

import (
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/shell/pace"
)

// A worker stays while it is in use and leaves once it has been idle for
// idleWorker (the pool's reaper tells it to, not a timer per attempt: it
// leaves between idleWorker and idleWorker + reapEvery after its last
// attempt), and the reaper with it.
func TestIdleWorkersLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTransport(nil, "", nil, pace.Runtime)
		out := make(chan result, 4)
		attempt := func() {
			tr.launch(job{reject: true}, out) // answered 503 at once: no HTTP
			if r := <-out; r.status != 503 {
				t.Fatalf("status %d, want 503", r.status)
			}
			synctest.Wait() // the worker is parked again
		}
		idle := func() int {
			tr.pool.mu.Lock()
			defer tr.pool.mu.Unlock()
			return len(tr.pool.idle)
		}
		attempt()
		for range 6 { // used every 0.7 idleWorker (off the timer's beat): never idle long
			time.Sleep(idleWorker * 7 / 10)
			attempt()
		}
		if n := tr.pool.started.Load(); n != 1 || idle() != 1 {
			t.Fatalf("%d workers started, %d idle; want the one worker reused", n, idle())
		}
		time.Sleep(idleWorker - time.Millisecond)
		synctest.Wait()
		if idle() != 1 {
			t.Fatalf("the worker left %v after its last attempt, before idleWorker (%v)", idleWorker-time.Millisecond, idleWorker)
		}
		time.Sleep(reapEvery + 2*time.Millisecond) // idleWorker + reapEvery since the last attempt, and a bit
		synctest.Wait()
		if idle() != 0 {
			t.Fatalf("the worker is still there %v after its last attempt", idleWorker+reapEvery)
		}
		tr.pool.mu.Lock()
		live, reaping := tr.pool.live, tr.pool.reaping
		tr.pool.mu.Unlock()
		if live != 0 || reaping {
			t.Fatalf("%d workers live, reaper running %v: want none once the last has left", live, reaping)
		}
		close(tr.quit)
		tr.wg.Wait()
	})
}

// After a burst opened many connections, attempts one at a time ride the
// most recently used one (LIFO), not each idle connection in turn: the
// surplus stays unused until it is closed as idle, instead of spreading the
// load over every connection the burst opened.
func TestIdleConnectionsReusedMostRecentFirst(t *testing.T) {
	f := newFake(t, "b1", false, func(got, int) answer { return answer{status: 200, delay: 20 * time.Millisecond, loadQ: -1} })
	var mu sync.Mutex
	used := map[net.Conn]int{} // connection -> requests written on it
	var last net.Conn
	dial := func(addr string) (net.Conn, error) {
		c, err := dialer(f)(addr)
		if err != nil {
			return nil, err
		}
		return &seenConn{Conn: c, wrote: func(c net.Conn) { mu.Lock(); used[c]++; last = c; mu.Unlock() }}, nil
	}
	tr := newTransport(dial, "", nil, pace.Runtime)
	defer func() { tr.shutdown(); close(tr.quit); tr.wg.Wait() }()
	ep := tr.endpoint("b1", endpointSpec{addr: f.addr()}, 64)
	tm := &template{method: "GET", uri: "/", host: f.addr()}
	out := make(chan result, 16)
	send := func() {
		tr.launch(job{ep: ep, tmpl: tm, plain: true, deadline: time.Now().Add(5 * time.Second)}, out)
	}
	const burst = 8
	for range burst { // at once: each opens a connection of its own
		send()
	}
	for range burst {
		if r := <-out; r.status != 200 {
			t.Fatalf("burst: status %d, err %v", r.status, r.err)
		}
	}
	mu.Lock()
	if len(used) != burst {
		t.Fatalf("the burst of %d opened %d connections", burst, len(used))
	}
	clear(used)
	mu.Unlock()
	for range 2 * burst { // one at a time
		send()
		if r := <-out; r.status != 200 {
			t.Fatalf("status %d, err %v", r.status, r.err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(used) != 1 || used[last] != 2*burst {
		t.Errorf("%d attempts one at a time used %d of the %d idle connections; want the most recent one for all", 2*burst, len(used), burst)
	}
}

// seenConn reports each request written on it.
type seenConn struct {
	net.Conn
	wrote func(net.Conn)
}

func (c *seenConn) Write(b []byte) (int, error) {
	c.wrote(c)
	return c.Conn.Write(b)
}

// BenchmarkWorkerStart starts goroutines that need about 12 KB of stack,
// as an attempt through fasthttp does, with the stack grown in one step
// (growStack, as a new worker does) and left to double on the way:
//
//	GOMAXPROCS=1 go test -run '^$' -bench WorkerStart ./internal/shell/loadgen
func BenchmarkWorkerStart(b *testing.B) {
	for _, grow := range []bool{true, false} {
		name := map[bool]string{true: "grown", false: "doubling"}[grow]
		b.Run(name, func(b *testing.B) {
			var wg sync.WaitGroup
			for i := 0; b.Loop(); i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if grow {
						growStack(i)
					}
					deepFrames(50)
				}()
				wg.Wait()
			}
		})
	}
}

// deepFrames uses about n x 240 bytes of stack.
//
//go:noinline
func deepFrames(n int) int {
	var buf [200]byte
	buf[n%len(buf)] = byte(n)
	if n == 0 {
		return int(buf[0])
	}
	return deepFrames(n-1) + int(buf[(n+1)%len(buf)])
}
