package backend

import (
	"bufio"
	"context"
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/testbin"
)

// These tests use real sockets on 127.0.0.1 and the wall clock, for what an
// in-memory listener cannot show: refused connections, resets and
// cancellation on close. Timing bounds are generous.

func startTCP(t *testing.T, cancelOnClose bool) (*Backend, tcpClient) {
	t.Helper()
	b, err := New(Config{Lab: labWith(t), Hop: 2 * time.Millisecond, CancelOnClose: cancelOnClose,
		Access: wire.Access{AllowHosts: []string{"backend"}}}) // the Host the test client sends
	if err != nil {
		t.Fatal(err)
	}
	testbin.Start(t, "backend", b)
	return b, tcpClient{t: t, data: b.Addr(), admin: b.AdminAddr()}
}

type tcpClient struct {
	t           *testing.T
	data, admin string
}

func dialer(addr string) func() (net.Conn, error) {
	return func() (net.Conn, error) { return net.DialTimeout("tcp", addr, time.Second) }
}

func (c tcpClient) get(hdr ...string) result { return do(dialer(c.data), "GET", "/", "", hdr...) }

func (c tcpClient) post(path, body string) result { return do(dialer(c.admin), "POST", path, body) }

func (c tcpClient) state() State {
	var st State
	mustJSON(c.t, do(dialer(c.admin), "GET", "/admin/state", "").body, &st)
	return st
}

// waitFor polls cond every few milliseconds for up to 2 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func TestWallClockServiceTime(t *testing.T) {
	_, c := startTCP(t, false)
	r := c.get(wire.HWork, "20ms")
	if r.code != 200 || r.took < 22*time.Millisecond || r.took > 200*time.Millisecond {
		t.Fatalf("got %d %v in %v, want 200 in about 20ms + 2ms hop", r.code, r.err, r.took)
	}
}

func TestKillRefusesAndRestartServes(t *testing.T) {
	_, c := startTCP(t, false)
	inService := async(func() result { return c.get(wire.HWork, "5s") })
	waitFor(t, "a job in service", func() bool { return c.state().Busy == 1 })
	queued := async(func() result { return c.get(wire.HWork, "5s") })
	waitFor(t, "a queued job", func() bool { return c.state().Queued == 1 })

	if r := c.post("/admin/drill", `{"action":"kill"}`); r.code != 200 {
		t.Fatalf("kill: %d %s", r.code, r.body)
	}
	for name, ch := range map[string]<-chan result{"in service": inService, "queued": queued} {
		if r := <-ch; r.err == nil || r.took > 2*time.Second {
			t.Errorf("%s request after kill: %d %v after %v, want a connection error at once", name, r.code, r.err, r.took)
		}
	}
	if r := c.get(); !errors.Is(r.err, syscall.ECONNREFUSED) {
		t.Errorf("new connection to a killed server: %d %v, want connection refused", r.code, r.err)
	}
	if r := c.post("/admin/drill", `{"action":"restart"}`); r.code != 200 {
		t.Fatalf("restart: %d %s", r.code, r.body)
	}
	if r := c.get(wire.HWork, "1ms"); r.code != 200 {
		t.Errorf("after restart: %d %v", r.code, r.err)
	}
}

func TestClosedConnectionCancelsQueuedJob(t *testing.T) {
	_, c := startTCP(t, true)
	first := async(func() result { return c.get(wire.HWork, "300ms") })
	waitFor(t, "a job in service", func() bool { return c.state().Busy == 1 })
	conn, err := net.Dial("tcp", c.data)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(conn)
	_, _ = w.WriteString("GET / HTTP/1.1\r\nHost: b\r\nX-Lab-Work: 300ms\r\n\r\n")
	_ = w.Flush()
	waitFor(t, "a queued job", func() bool { return c.state().Queued == 1 })
	_ = conn.Close()
	waitFor(t, "the queue to empty", func() bool { st := c.state(); return st.Queued == 0 && st.Busy == 1 })
	if r := <-first; r.code != 200 {
		t.Errorf("the job in service: %d %v", r.code, r.err)
	}
}

func TestClosedConnectionKeepsJobByDefault(t *testing.T) {
	_, c := startTCP(t, false)
	first := async(func() result { return c.get(wire.HWork, "100ms") })
	waitFor(t, "a job in service", func() bool { return c.state().Busy == 1 })
	conn, err := net.Dial("tcp", c.data)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte("GET / HTTP/1.1\r\nHost: b\r\nX-Lab-Work: 10ms\r\n\r\n"))
	waitFor(t, "a queued job", func() bool { return c.state().Queued == 1 })
	_ = conn.Close()
	<-first
	waitFor(t, "the abandoned job to be served", func() bool { return c.state().Counters.Completed == 2 })
}

func TestStartFailsOnAPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := New(Config{Lab: labWith(t), Addr: ln.Addr().String()})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err == nil || !contains(err.Error(), "data listener") {
		t.Errorf("Start on a port in use: %v", err)
	}
	if err := b.Shutdown(context.Background()); err != nil {
		t.Error(err)
	}
}
