package client

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
)

// The clients' connections, when the lab models them (docs/model.md
// "Connections"): each owner (Attempt.Owner) keeps a pool per balancer it
// sends to, or per server it picks when it balances itself. The runtime
// decides, the same way on both clocks, which attempt rides a warm
// connection, which opens one (and pays the handshake before its first hop:
// Attempt.Handshake, which the transport adds to that hop) and which waits
// in line at max_conns; a connection is free again when its answer reaches
// the client.

// pairOf is the connection pair attempt a rides: its owner and its
// balancer, or the server it picked.
func (rt *Runtime[N]) pairOf(a *Attempt[N]) conn.Pair {
	if rt.cfg.Balancers != nil {
		return conn.Pair{From: a.Owner, To: int32(a.Ticket.Server)}
	}
	return conn.Pair{From: a.Owner, To: a.Bal}
}

// dispatch hands attempt h to the transport on a connection: a warm one, a
// new one, or later, when one is free (freeConn).
func (rt *Runtime[N]) dispatch(now clock.Instant, h uint64, a *Attempt[N]) {
	if rt.conns == nil || rt.cfg.Balancers != nil && !a.Ticket.Valid { // no server: nothing to connect to
		rt.tr.Send(now, h, a)
		return
	}
	g := rt.conns.Acquire(now, rt.pairOf(a), h)
	if g.Wait {
		a.waiting, a.waitFrom = true, now
		return
	}
	rt.ride(now, h, a, g)
}

// ride sends attempt h on the connection g grants it, after a handshake
// when the connection is new.
func (rt *Runtime[N]) ride(now clock.Instant, h uint64, a *Attempt[N], g conn.Grant) {
	a.Conn, a.ConnNew = g.Conn, g.New
	if g.New {
		a.Handshake = rt.cfg.Conns.Handshake.Time(rt.FirstHop(rt.cfg.Net, a).Delay(a.Pick, policy.ClientOut))
		rt.Rec.Handshake(report.ClientSide, a.Handshake)
	}
	if a.waiting {
		a.waiting, a.Waited = false, true
		rt.Rec.ConnWait(now.Sub(a.waitFrom))
	}
	rt.tr.Send(now, h, a)
}

// freeConn frees attempt a's connection at now: released for the next
// attempt, or closed when broken. A request waiting in line for one gets it.
func (rt *Runtime[N]) freeConn(now clock.Instant, a *Attempt[N], broken bool) {
	if a.Conn == 0 {
		return
	}
	p, c := rt.pairOf(a), a.Conn
	a.Conn = 0
	var ho conn.Handoff
	if broken {
		ho = rt.conns.Discard(now, p, c)
	} else {
		ho = rt.conns.Release(now, p, c)
	}
	if !ho.OK {
		return
	}
	w := rt.att.Get(ho.Ref)
	if w == nil || !w.waiting { // cannot happen: a waiting attempt is neither answered nor released
		rt.conns.Discard(now, p, ho.Conn)
		return
	}
	rt.ride(now, ho.Ref, w, ho.Grant)
}

// Broken tells the runtime that attempt h's connection failed (refused,
// reset, closed by the other end): it is closed, not reused. The driver
// calls it before Answer.
func (rt *Runtime[N]) Broken(now clock.Instant, h uint64) {
	if a := rt.att.Get(h); a != nil {
		rt.freeConn(now, a, true)
	}
}

// Conns is the clients' connection table (nil when not modelled): the
// simulator closes the idle connections to a server that goes down, the
// loadgen opens and closes the real ones it names.
func (rt *Runtime[N]) Conns() *conn.Table { return rt.conns }
