package conn

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

func at(ms int) clock.Instant { return clock.Instant(time.Duration(ms) * time.Millisecond) }

func table(t *testing.T, cfg Config) (*Table, *[]ID) {
	t.Helper()
	tb, err := NewTable(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var closed []ID
	tb.OnClose = func(_ Pair, c ID) { closed = append(closed, c) }
	return tb, &closed
}

func TestWarmWithinKeepaliveNewAfter(t *testing.T) {
	tb, closed := table(t, Config{Keepalive: time.Second})
	p := Pair{From: 3, To: 7}
	g := tb.Acquire(at(0), p, 1)
	if !g.New || g.Wait || g.Conn == 0 {
		t.Fatalf("first acquire = %+v, want a new connection", g)
	}
	tb.Release(at(10), p, g.Conn)
	if w := tb.Acquire(at(1009), p, 2); w.New || w.Conn != g.Conn {
		t.Fatalf("acquire 999ms after release = %+v, want warm connection %d", w, g.Conn)
	}
	tb.Release(at(1010), p, g.Conn)
	// Idle exactly Keepalive: closed.
	n := tb.Acquire(at(2010), p, 3)
	if !n.New || n.Conn == g.Conn {
		t.Fatalf("acquire after idling exactly keepalive = %+v, want a new connection", n)
	}
	if len(*closed) != 1 || (*closed)[0] != g.Conn {
		t.Fatalf("closed %v, want [%d]", *closed, g.Conn)
	}
	if s := tb.Stats(); s.Opened != 2 || s.Reused != 1 || s.Closed != 1 {
		t.Fatalf("stats %+v, want 2 opened, 1 reused, 1 closed", s)
	}
}

func TestPairsAreSeparate(t *testing.T) {
	tb, _ := table(t, Config{Keepalive: time.Minute})
	a, b := Pair{From: 1, To: 2}, Pair{From: 2, To: 1}
	ga := tb.Acquire(at(0), a, 1)
	tb.Release(at(1), a, ga.Conn)
	if gb := tb.Acquire(at(2), b, 2); !gb.New {
		t.Fatalf("the reverse pair rode %+v: pairs must not share connections", gb)
	}
}

func TestMostRecentlyFreedFirst(t *testing.T) {
	tb, _ := table(t, Config{Keepalive: time.Minute})
	p := Pair{From: 0, To: 0}
	c1 := tb.Acquire(at(0), p, 1).Conn
	c2 := tb.Acquire(at(0), p, 2).Conn
	if c1 == c2 {
		t.Fatal("two busy requests share a connection")
	}
	tb.Release(at(5), p, c2)
	tb.Release(at(6), p, c1)
	if g := tb.Acquire(at(7), p, 3); g.Conn != c1 {
		t.Fatalf("got %d, want %d (freed last)", g.Conn, c1)
	}
	if got := tb.Open(p); got != 2 {
		t.Fatalf("open = %d, want 2", got)
	}
}

func TestLimitMakesRequestsWait(t *testing.T) {
	tb, closed := table(t, Config{Keepalive: time.Minute, MaxConns: 1})
	p := Pair{From: 4, To: 1}
	g := tb.Acquire(at(0), p, 10)
	w1 := tb.Acquire(at(1), p, 11)
	w2 := tb.Acquire(at(2), p, 12)
	if !w1.Wait || !w2.Wait || tb.Waiting(p) != 2 {
		t.Fatalf("at the limit: %+v %+v, waiting %d; want both to wait", w1, w2, tb.Waiting(p))
	}
	h := tb.Release(at(3), p, g.Conn)
	if !h.OK || h.Ref != 11 || h.New || h.Conn != g.Conn {
		t.Fatalf("release handed %+v, want the warm connection to request 11", h)
	}
	h = tb.Discard(at(4), p, g.Conn)
	if !h.OK || h.Ref != 12 || !h.New || h.Conn == g.Conn {
		t.Fatalf("discard handed %+v, want a new connection to request 12", h)
	}
	if len(*closed) != 1 {
		t.Fatalf("closed %v, want the discarded one", *closed)
	}
	if h := tb.Release(at(5), p, h.Conn); h.OK {
		t.Fatalf("nobody waits, yet %+v", h)
	}
	if tb.Open(p) != 1 || tb.Waiting(p) != 0 {
		t.Fatalf("open %d waiting %d, want 1 and 0", tb.Open(p), tb.Waiting(p))
	}
	if s := tb.Stats(); s.Waited != 2 || s.Opened != 2 {
		t.Fatalf("stats %+v, want 2 waited, 2 opened", s)
	}
}

func TestWithdraw(t *testing.T) {
	tb, _ := table(t, Config{Keepalive: time.Minute, MaxConns: 1})
	p := Pair{From: 1, To: 1}
	g := tb.Acquire(at(0), p, 1)
	tb.Acquire(at(0), p, 2)
	tb.Acquire(at(0), p, 3)
	if !tb.Withdraw(p, 2) || tb.Withdraw(p, 2) || tb.Withdraw(Pair{From: 9, To: 9}, 3) {
		t.Fatal("withdraw: want true once for a waiting request, false otherwise")
	}
	if h := tb.Release(at(1), p, g.Conn); h.Ref != 3 {
		t.Fatalf("handed to %d, want 3 (2 withdrew)", h.Ref)
	}
}

func TestKeepaliveZeroKeepsNothing(t *testing.T) {
	tb, closed := table(t, Config{Keepalive: 0})
	p := Pair{From: 1, To: 2}
	for i := range 3 {
		g := tb.Acquire(at(i), p, uint64(i))
		if !g.New {
			t.Fatalf("request %d rode %+v; keepalive 0 keeps no connection", i, g)
		}
		tb.Release(at(i), p, g.Conn)
		if len(*closed) != i+1 {
			t.Fatalf("after release %d: closed %v, want it closed at once", i, *closed)
		}
	}
}

func TestSweepAndCloseIdleTo(t *testing.T) {
	tb, closed := table(t, Config{Keepalive: 100 * time.Millisecond})
	a, b := Pair{From: 1, To: 5}, Pair{From: 2, To: 6}
	ga, gb := tb.Acquire(at(0), a, 1), tb.Acquire(at(0), b, 2)
	tb.Release(at(0), a, ga.Conn)
	tb.Release(at(50), b, gb.Conn)
	tb.Sweep(at(120))
	if len(*closed) != 1 || (*closed)[0] != ga.Conn || tb.Open(a) != 0 || tb.Open(b) != 1 {
		t.Fatalf("sweep at 120ms closed %v (open %d, %d), want only %d", *closed, tb.Open(a), tb.Open(b), ga.Conn)
	}
	busy := tb.Acquire(at(130), b, 3) // rides gb's connection
	tb.Acquire(at(130), b, 4)         // a second, new one
	tb.Release(at(131), b, busy.Conn)
	tb.CloseIdleTo(6)
	if tb.Open(b) != 1 || len(*closed) != 2 {
		t.Fatalf("after the server went down: open %d, closed %v; want the busy one only left", tb.Open(b), *closed)
	}
}

func TestCost(t *testing.T) {
	if got := (Cost{Rounds: 2}).Time(5 * time.Millisecond); got != 20*time.Millisecond {
		t.Fatalf("2 rounds over a 5ms hop = %v, want 20ms", got)
	}
	if got := (Cost{Fixed: 3 * time.Millisecond}).Time(5 * time.Millisecond); got != 3*time.Millisecond {
		t.Fatalf("fixed 3ms = %v", got)
	}
	if got := (Cost{}).Time(time.Second); got != 0 {
		t.Fatalf("no cost = %v", got)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Keepalive: -1}, {MaxConns: -1}, {Handshake: Cost{Rounds: 11}}, {Handshake: Cost{Fixed: -1}}} {
		if _, err := NewTable(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}
