package lb

import (
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/wire"
)

// startCountedFake is a fake whose listener counts accepted connections
// and that closes connections idle for idle (0: never).
func startCountedFake(t *testing.T, name string, idle time.Duration) (*fake, *atomic.Uint64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	n := new(atomic.Uint64)
	f := &fake{name: name, ln: conns.Listen(ln, nil, n)}
	f.status.Store(200)
	f.srv = &fasthttp.Server{Handler: f.handle, NoDefaultServerHeader: true, IdleTimeout: idle}
	wire.Serve(f.srv, f.ln, wire.Limits{}, nil)
	t.Cleanup(f.close)
	return f, n
}

// At max_conns 1 the balancer opens one connection to the backend and
// requests wait for it in line; they all get through, over that one
// connection, which the backend accepted once.
func TestBalancerConnectionLimit(t *testing.T) {
	f, accepted := startCountedFake(t, "s1", 0)
	f.delay.Store(int64(200 * time.Millisecond))
	_, c := startLB(t, testLab(t, "network.handshake", "1ms", "network.max_conns", "1", "network.keepalive", "10s"), f)
	var wg sync.WaitGroup
	statuses := make([]int, 3)
	for i := range statuses {
		wg.Go(func() { statuses[i] = c.get(t, "/").status })
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 200 {
			t.Fatalf("request %d: status %d", i, s)
		}
	}
	st := c.state(t).Connections
	if st == nil || st.Opened != 1 || st.Waits < 1 || st.HandshakeMs != 1 || accepted.Load() != 1 {
		t.Fatalf("connections %+v, backend accepted %d; want 1 opened (and accepted), requests waiting for it", st, accepted.Load())
	}
}

// A connection idle for the keepalive is closed: the next request opens a
// new one (a handshake), which the backend accepts.
func TestBalancerKeepalive(t *testing.T) {
	f, accepted := startCountedFake(t, "s1", 0)
	_, c := startLB(t, testLab(t, "network.handshake", "1", "network.keepalive", "100ms"), f)
	for i := range 3 {
		if a := c.get(t, "/"); a.status != 200 {
			t.Fatalf("request %d: %d", i, a.status)
		}
	}
	if st := c.state(t).Connections; st.Opened != 1 || accepted.Load() != 1 {
		t.Fatalf("back-to-back requests: %+v, accepted %d; want one warm connection", st, accepted.Load())
	}
	time.Sleep(300 * time.Millisecond) // past the keepalive
	if a := c.get(t, "/"); a.status != 200 {
		t.Fatalf("after the keepalive: %d", a.status)
	}
	if st := c.state(t).Connections; st.Opened != 2 || accepted.Load() != 2 || st.Redials != 0 {
		t.Fatalf("after the keepalive: %+v, accepted %d; want a second connection, opened by the model", st, accepted.Load())
	}
}

// A warm connection the backend closed while it idled (a restart) is
// dialed again once: the request gets through and the redial is counted.
func TestBalancerRedialsAConnectionClosedByTheBackend(t *testing.T) {
	f, accepted := startCountedFake(t, "s1", 50*time.Millisecond)
	_, c := startLB(t, testLab(t, "network.handshake", "1", "network.keepalive", "10s"), f)
	if a := c.get(t, "/"); a.status != 200 {
		t.Fatal(a.status)
	}
	time.Sleep(200 * time.Millisecond) // the backend closes the idle connection
	if a := c.get(t, "/"); a.status != 200 {
		t.Fatalf("on a connection the backend closed: %d %s", a.status, a.body)
	}
	if st := c.state(t).Connections; st.Opened != 2 || st.Redials != 1 || accepted.Load() != 2 {
		t.Fatalf("%+v, accepted %d; want the closed connection dialed again and counted", st, accepted.Load())
	}
}
