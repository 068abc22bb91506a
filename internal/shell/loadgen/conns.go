package loadgen

import (
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/pace"
)

// Connections, when the lab models them (docs/model.md "Connections"). The
// client runtime decides, as in the simulator, which connection each
// attempt rides: each target keeps one real connection (shell/conns) per
// connection of the model, dials it (TCP, and TLS with network.tls) when
// the model says it is new, sends the attempt's requests over it one at a
// time, and closes it when the model closes it: idle past keepalive
// (checked as the model meets it, and by a sweep every quarter keepalive so
// that idle connections close on time), or broken. So the connections the
// servers (or the lb) accept are the handshakes the report counts, and the
// handshake's extra round trips are slept like every other hop.

// modelConns ties t's real connections to its runtime's model.
func (t *target) modelConns() {
	tbl := t.rt.Conns()
	if tbl == nil {
		return
	}
	t.live = map[conn.ID]*conns.Conn{}
	tbl.OnClose = func(_ conn.Pair, id conn.ID) {
		if c := t.live[id]; c != nil {
			c.Close() // idle, or already closed by its worker
			delete(t.live, id)
		}
	}
}

// connFor puts the real connection of attempt a's model connection on j.
func (t *target) connFor(j *job, a *attempt) {
	if t.live == nil || a.Conn == 0 {
		return
	}
	c := t.live[a.Conn]
	if c == nil || a.ConnNew {
		c = conns.New(j.ep.spec.addr)
		t.live[a.Conn] = c
	}
	j.conn, j.dial = c, a.ConnNew
	j.redial = t.l.lab.Network.Handshake.Fixed
	if r := t.l.lab.Network.Handshake.Rounds; r > 0 {
		j.redial = conn.Cost{Rounds: r}.Time(t.rt.FirstHop(t.l.net, a).Delay(a.Pick, policy.ClientOut))
	}
}

// noteConn tells the model what became of the attempt's connection: dialed
// again (a handshake the model did not foresee: the other end had closed
// it), or broken (the model closes it too).
func (t *target) noteConn(now clock.Instant, r *result) {
	if r.redialed {
		t.rt.Rec.Handshake(report.ClientSide, r.redialCost)
	}
	if r.broken {
		t.rt.Broken(now, r.h)
	}
}

// onConn does the exchange of j over its model connection. A warm
// connection the other end closed while it idled (a restarted server) is
// dialed again once, after the handshake's emulated round trips; a
// connection that fails, or that the answer says to close, is closed.
func (tr *transport) onConn(j *job, r *result, req *fasthttp.Request, resp *fasthttp.Response) error {
	err := j.conn.Do(req, resp, j.deadline, 0)
	if err != nil && !j.dial && j.conn.Stale(err) && !tr.closing.Load() {
		tr.waits.Sleep(pace.Hop, j.redial)
		r.redialed, r.redialCost = true, j.redial
		if err = j.conn.Reopen(tr.dialer, j.deadline); err == nil {
			err = j.conn.Do(req, resp, j.deadline, 0)
		}
	}
	if err != nil || resp.ConnectionClose() {
		j.conn.Close()
		r.broken = true
	}
	return err
}

// startSweeps schedules the first sweep of idle connections.
func (l *loop) startSweeps() {
	if d, ok := l.sweepEvery(); ok {
		l.q.push(event{at: clock.Instant(d), kind: evSweep})
	}
}

// sweepEvery is a quarter of the keepalive, within [10ms, 1s]; no sweeps
// without modelled connections or with keepalive 0 (connections close as
// their answers arrive).
func (l *loop) sweepEvery() (time.Duration, bool) {
	n := l.lab.Network
	if !n.Connections() || n.Keepalive == 0 {
		return 0, false
	}
	return min(max(n.Keepalive/4, 10*time.Millisecond), time.Second), true
}

// sweep closes every target's connections idle past keepalive at e.at.
func (l *loop) sweep(e event) {
	for _, t := range l.targets {
		if tbl := t.rt.Conns(); tbl != nil {
			tbl.Sweep(e.at)
		}
	}
	if d, _ := l.sweepEvery(); e.at < l.cutAt {
		l.q.push(event{at: e.at.Add(d), kind: evSweep})
	}
}
