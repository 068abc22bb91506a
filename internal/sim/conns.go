package sim

import (
	"fmt"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
)

// Connections in the simulator (docs/model.md "Connections"). The clients'
// own (to their balancer, or to the servers they pick) are the client
// runtime's, which hands each attempt its handshake: Send adds it to the
// first hop. The balancers' connections to the servers are here, in one
// table keyed by (balancer, server): forward acquires one after the pick, a
// new one adds its handshake to the hop to the server, and the server's
// answer back at the balancer frees it; a balancer that gives up (504)
// closes it, as an HTTP/1.1 client must.

// buildConns makes the balancers' connection table when the lab models
// connections and a balancer tier fronts the servers.
func (w *world) buildConns() error {
	cfg, on := assemble.Conns(w.lab)
	w.connsOn = on
	if !on || w.clientLB {
		return nil
	}
	t, err := conn.NewTable(cfg)
	if err != nil {
		return fmt.Errorf("network: %w", err)
	}
	w.balConns = t
	return nil
}

func balancerPair(a *attempt) conn.Pair { return conn.Pair{From: a.Bal, To: a.Net.server} }

// connectToServer sends attempt h on from its balancer, on a connection to its server: a warm one, a new one (its handshake
// first), or, at max_conns, when one is freed.
func (w *world) connectToServer(now clock.Instant, h uint64, a *attempt) {
	g := w.balConns.Acquire(now, balancerPair(a), h)
	if g.Wait {
		a.Net.balWaiting, a.Net.balWaitFrom = true, now
		return
	}
	w.rideToServer(now, h, a, g)
}

// rideToServer puts attempt h on the hop to its server over connection g.
func (w *world) rideToServer(now clock.Instant, h uint64, a *attempt, g conn.Grant) {
	n := &a.Net
	n.balConn = g.Conn
	delay := w.hopDelay(a, policy.BalancerOut)
	if g.New {
		hs := w.balConns.Config().Handshake.Time(delay)
		w.rt.Rec.Handshake(report.BalancerSide, hs)
		w.servers[n.server].conns++
		delay += hs
	}
	if n.balWaiting {
		n.balWaiting = false
		w.rt.Rec.ConnWait(now.Sub(n.balWaitFrom))
	}
	w.pushHop(now.Add(delay), evAtServer, h)
}

// freeBalancerConn frees attempt h's balancer connection as the server's
// answer reaches the balancer (closes it when broken); a request waiting
// for one goes on.
func (w *world) freeBalancerConn(h uint64, a *attempt, broken bool) {
	n := &a.Net
	if w.balConns == nil || n.balConn == 0 {
		return
	}
	c := n.balConn
	n.balConn = 0
	if broken {
		w.handOff(w.balConns.Discard(w.now, balancerPair(a), c))
		return
	}
	w.handOff(w.balConns.Release(w.now, balancerPair(a), c))
}

// abandonBalancerConn: the balancer gave up on attempt h (its timeout). A
// connection it rode is closed; if it was still waiting for one, it leaves
// the line and will never reach the server.
func (w *world) abandonBalancerConn(h uint64, a *attempt) {
	n := &a.Net
	switch {
	case w.balConns == nil:
	case n.balWaiting:
		w.balConns.Withdraw(balancerPair(a), h)
		n.balWaiting, n.srvDone = false, true
	case n.balConn != 0:
		c := n.balConn
		n.balConn = 0
		w.handOff(w.balConns.Discard(w.now, balancerPair(a), c))
	}
}

// handOff sends on the attempt that waited for the connection ho frees.
func (w *world) handOff(ho conn.Handoff) {
	if !ho.OK {
		return
	}
	a := w.attemptOf(ho.Ref)
	if a == nil || !a.Net.balWaiting { // cannot happen: a waiting attempt is held until it is sent or withdrawn
		w.fail("connection handed to attempt %d, which is not waiting", ho.Ref)
		return
	}
	w.rideToServer(w.now, ho.Ref, a, ho.Grant)
}

// broken reports whether an answer means the connection died with it: the
// server went down (refused, or killed with the attempt on it).
func broken(s server.Status) bool { return s == server.Lost || s == server.Refused }

// serverDown closes every idle connection to server si (killed: they died
// with it); busy ones close as their attempts end Lost.
func (w *world) serverDown(si int) {
	if w.balConns != nil {
		w.balConns.CloseIdleTo(int32(si))
	}
	if t := w.rt.Conns(); t != nil && w.clientLB {
		t.CloseIdleTo(int32(si))
	}
}

// checkConnLimit: no pair holds more connections than max_conns.
func (w *world) checkConnLimit() {
	limit := w.lab.Network.MaxConns
	for _, t := range []*conn.Table{w.balConns, w.rt.Conns()} {
		if t != nil && limit > 0 && t.MaxOpen() > limit {
			w.fail("a pair holds %d connections, over max_conns %d", t.MaxOpen(), limit)
		}
	}
}

// checkConns: the connections opened to the servers are the handshakes
// the report counts on the server-facing leg, and every handshake the
// report counts is a connection a table opened.
func (w *world) checkConns() {
	if !w.connsOn {
		return
	}
	var toServers uint64
	for _, s := range w.servers {
		toServers += s.conns
	}
	facing, clients := w.balConns, w.rt.Conns()
	if w.clientLB {
		facing = clients
	}
	if got := facing.Stats().Opened; got != toServers {
		w.fail("%d connections opened to the servers, %d counted at the servers", got, toServers)
	}
	var run report.Run
	w.rt.Rec.Fill(&run, w.now)
	opened := clients.Stats().Opened
	if w.balConns != nil {
		opened += w.balConns.Stats().Opened
	}
	if c := run.Connections; c == nil || c.Handshakes != opened {
		w.fail("the report counts %+v handshakes, the tables opened %d", c, opened)
	}
}
