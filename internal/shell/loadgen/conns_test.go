package loadgen

import (
	"net"
	"sync/atomic"
	"testing"
)

// Each connection of the clients' model is one real connection: the dials
// are the report's handshakes, whether connections close idle (keepalive),
// wait at max_conns, or are closed by the other end (every fifth answer
// says Connection: close, and the model opens a new one after it).
func TestClientConnectionsFollowTheModel(t *testing.T) {
	var closed atomic.Int64
	closing := func(g got, n int) answer {
		a := okAfterWork(g, n)
		if a.close = n%5 == 4; a.close {
			closed.Add(1)
		}
		return a
	}
	a := newFake(t, "lb-a", false, closing)
	b := newFake(t, "lb-b", false, closing)
	var dials atomic.Uint64
	dial := dialer(a, b)
	lab := testLab(t, map[string]string{"clients.rate": "300", "clients.count": "4", "network.hop": "1ms",
		"network.handshake": "1", "network.keepalive": "40ms", "network.max_conns": "1"})
	rep, _ := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("two", a, b)},
		Dial: func(addr string) (net.Conn, error) { dials.Add(1); return dial(addr) }})
	run := rep.Runs[0]
	checkAccounted(t, run)
	c := run.Connections
	if c == nil || c.ByClients == 0 || c.Waits == 0 || closed.Load() == 0 {
		t.Fatalf("connections %+v: want handshakes and waits at max_conns 1", c)
	}
	if dials.Load() != c.ByClients {
		t.Fatalf("%d dials for %d handshakes counted (%s)", dials.Load(), c.ByClients, describe(run))
	}
	if c.ByClients >= run.Attempts {
		t.Fatalf("%d handshakes for %d attempts: connections were never reused", c.ByClients, run.Attempts)
	}
}
