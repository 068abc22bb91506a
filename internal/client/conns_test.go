package client

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
)

// connected is a runtime whose clients reach one balancer over modelled
// connections: 2 round trips of a 5 ms hop per handshake, 1 s keepalive.
func connected(t *testing.T, n *net, maxConns int) *Runtime[tag] {
	t.Helper()
	cc := conn.Config{Keepalive: time.Second, MaxConns: maxConns, Handshake: conn.Cost{Rounds: 2}}
	return New[tag](Config{Live: Live{Net: policy.Network{Hop: 5 * time.Millisecond}}, Stream: stream(t, 0), StopAt: clock.Never, Conns: &cc}, n)
}

// The first request of a client opens a connection and pays the handshake;
// the next within keepalive rides it warm; after keepalive idle it pays
// again. Another client has connections of its own.
func TestHandshakeOnNewAndIdleConnections(t *testing.T) {
	n := &net{}
	rt := connected(t, n, 0)
	answer := func(at clock.Instant, i int) {
		rt.Answer(at, n.sent[i], policy.OK, Reply{})
		rt.Release(n.sent[i])
	}

	rt.Begin(0, req(1, 0), -1)
	a := rt.Attempt(n.sent[0])
	if !a.ConnNew || a.Handshake != 20*time.Millisecond {
		t.Fatalf("first attempt: new %v, handshake %v; want a new connection and 2 × 2 × 5ms", a.ConnNew, a.Handshake)
	}
	first := a.Conn
	answer(30*ms, 0)
	rt.Begin(500*ms, req(2, 0), -1)
	if a := rt.Attempt(n.sent[1]); a.ConnNew || a.Handshake != 0 || a.Conn != first {
		t.Fatalf("within keepalive: %+v; want the warm connection", a)
	}
	rt.Begin(510*ms, req(3, 1), -1)
	if a := rt.Attempt(n.sent[2]); !a.ConnNew {
		t.Fatal("client 1 rode client 0's connection")
	}
	answer(520*ms, 1)
	answer(530*ms, 2)
	rt.Begin(1520*ms, req(4, 0), -1) // idle exactly 1 s
	if a := rt.Attempt(n.sent[3]); !a.ConnNew || a.Conn == first {
		t.Fatalf("after keepalive: %+v; want a new connection", a)
	}
	answer(1550*ms, 3)
	run := fill(rt)
	c := run.Connections
	if c == nil || c.ByClients != 3 || c.ByBalancers != 0 || c.HandshakeMs != 60 || c.PerRequest != 0.75 {
		t.Fatalf("report %+v; want 3 handshakes of 20 ms over 4 requests", c)
	}
}

// At max_conns a request waits for a connection; the answer that frees one
// hands it over warm, and the wait is counted. A broken connection is
// closed, and the next request in line opens a new one.
func TestMaxConnsWaitAndBrokenConnections(t *testing.T) {
	n := &net{}
	rt := connected(t, n, 1)
	rt.Begin(0, req(1, 0), -1)
	rt.Begin(2*ms, req(2, 0), -1)
	rt.Begin(3*ms, req(3, 0), -1)
	if len(n.sent) != 1 || rt.Conns().Waiting(conn.Pair{From: 0, To: 0}) != 2 {
		t.Fatalf("sent %d attempts with one connection allowed; want 1 sent and 2 waiting", len(n.sent))
	}
	first := rt.Attempt(n.sent[0]).Conn
	rt.Answer(12*ms, n.sent[0], policy.OK, Reply{})
	if len(n.sent) != 2 {
		t.Fatal("the freed connection did not go to the request waiting")
	}
	if a := rt.Attempt(n.sent[1]); a.Conn != first || a.ConnNew {
		t.Fatalf("handed over: %+v; want the warm connection %d", a, first)
	}
	rt.Broken(20*ms, n.sent[1])
	rt.Answer(20*ms, n.sent[1], policy.Error, Reply{})
	if len(n.sent) != 3 {
		t.Fatal("the broken connection's place did not go to the request waiting")
	}
	if a := rt.Attempt(n.sent[2]); !a.ConnNew || a.Conn == first {
		t.Fatalf("after a broken connection: %+v; want a new one", a)
	}
	c := fill(rt).Connections
	if c.Waits != 2 || c.WaitMs != 10+17 || c.ByClients != 2 {
		t.Fatalf("report %+v; want 2 waits of 10 and 17 ms, 2 handshakes", c)
	}
}

// Without a connection model nothing changes: no handshake, no report.
func TestNoConnectionModel(t *testing.T) {
	n := &net{}
	rt := New[tag](Config{Stream: stream(t, 0), StopAt: clock.Never}, n)
	rt.Begin(0, req(1, 0), -1)
	if a := rt.Attempt(n.sent[0]); a.Conn != 0 || a.ConnNew || a.Handshake != 0 {
		t.Fatalf("attempt %+v rides a modelled connection", a)
	}
	if fill(rt).Connections != nil {
		t.Fatal("the report has connections the lab does not model")
	}
}

// With clients.sticky 10 an owner sends 10 requests in a row to the server
// it picked: round robin picks once per 10 requests. A failure ends the run.
func TestStickyTenRequestsPerPick(t *testing.T) {
	servers := []balance.Server{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	var bals []*policy.Balancer
	for range 2 { // one per client id
		b, err := policy.NewBalancer(policy.BalancerConfig{Algorithm: balance.Config{Name: "round-robin"}, Load: load.Local}, servers)
		if err != nil {
			t.Fatal(err)
		}
		bals = append(bals, b)
	}
	b := bals[0]
	n := &net{}
	rt := New[tag](Config{Live: Live{Sticky: 10}, Stream: stream(t, 0), StopAt: clock.Never, Balancers: bals}, n)
	var got []int
	for i := range 35 {
		rt.Begin(clock.Instant(i)*ms, req(uint64(i), 0), -1)
		got = append(got, rt.Attempt(n.sent[i]).Ticket.Server)
		rt.Answer(clock.Instant(i)*ms, n.sent[i], policy.OK, Reply{})
	}
	picks := 0
	for i, s := range got {
		if i%10 == 0 {
			picks++
			if i > 0 && s == got[i-1] {
				t.Fatalf("request %d stayed on server %d; round robin's next pick is another", i, s)
			}
		} else if s != got[i-1] {
			t.Fatalf("request %d went to %d, request %d to %d: a run of 10 changed server (%v)", i, s, i-1, got[i-1], got)
		}
	}
	if picks != 4 || b.Picked(got[0]) != 10 {
		t.Fatalf("%d runs, %d attempts to the first server; want 4 runs of 10 (%v)", picks, b.Picked(got[0]), got)
	}

	// A failure on the stuck server ends the run: the next request picks.
	stuck := got[len(got)-1]
	rt.Begin(40*ms, req(40, 0), -1)
	h := n.sent[len(n.sent)-1]
	if rt.Attempt(h).Ticket.Server != stuck {
		t.Fatal("the run of 10 was cut short")
	}
	rt.Answer(41*ms, h, policy.Error, Reply{})
	rt.Begin(42*ms, req(41, 0), -1)
	if s := rt.Attempt(n.sent[len(n.sent)-1]).Ticket.Server; s == stuck {
		t.Fatalf("after a failure the client stayed on server %d", s)
	}
	// Another owner has a run of its own.
	rt.Begin(43*ms, req(42, 1), -1)
	rt.Begin(44*ms, req(43, 0), -1)
	if a, b := rt.Attempt(n.sent[len(n.sent)-2]), rt.Attempt(n.sent[len(n.sent)-1]); a.Ticket.Server == b.Ticket.Server {
		t.Fatalf("client 1's pick took over client 0's run (both on %d)", a.Ticket.Server)
	}
}

// fill is the report row of rt's recorder.
func fill(rt *Runtime[tag]) report.Run {
	var run report.Run
	rt.Rec.Fill(&run, 0)
	return run
}

// A run that sticks for good (balancing per connection) never picks again;
// with StickyAge 100 ms it picks again once the run is 90 to 110 ms old,
// whatever its count.
func TestStickyAgeEndsARun(t *testing.T) {
	servers := []balance.Server{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	for _, age := range []time.Duration{0, 100 * time.Millisecond} {
		b, err := policy.NewBalancer(policy.BalancerConfig{Algorithm: balance.Config{Name: "round-robin"}, Load: load.Local}, servers)
		if err != nil {
			t.Fatal(err)
		}
		n := &net{}
		rt := New[tag](Config{Live: Live{Sticky: 1000000, StickyAge: age}, Stream: stream(t, 0), StopAt: clock.Never, Balancers: []*policy.Balancer{b}}, n)
		var changes []clock.Instant
		last := -1
		for i := range 1000 { // one request a millisecond for a second
			at := clock.Instant(i) * ms
			rt.Begin(at, req(uint64(i), 0), -1)
			s := rt.Attempt(n.sent[i]).Ticket.Server
			rt.Answer(at, n.sent[i], policy.OK, Reply{})
			if s != last {
				changes = append(changes, at)
				last = s
			}
		}
		if age == 0 {
			if len(changes) != 1 {
				t.Errorf("sticking for good: the client changed server at %v", changes)
			}
			continue
		}
		if len(changes) < 9 || len(changes) > 12 {
			t.Fatalf("age %v: %d runs in a second (%v), want about 10", age, len(changes), changes)
		}
		for k := 1; k < len(changes); k++ {
			if d := changes[k].Sub(changes[k-1]); d < 90*time.Millisecond || d > 111*time.Millisecond {
				t.Errorf("age %v: a run lasted %v, want 90 to 110 ms", age, d)
			}
		}
	}
}
