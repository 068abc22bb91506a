package lb

import (
	"net"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/turns"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Connections to the backends, when the lab models them (docs/model.md
// "Connections"). The balancer runs the model of internal/core/conn on its
// pairs (this balancer, each backend) exactly as the simulator's balancer
// does: after the pick it takes a warm connection, opens a new one (dials
// it, with a real TLS handshake under network.tls, within the handshake's
// emulated round trips), or waits in line at max_conns; the backend's
// answer frees it; a failed exchange or a timeout (504) closes it. Each
// model connection is one real connection (shell/conns), so what the
// backends accept is what the model opened. The model is guarded by mu like
// the pipeline; sockets are dialed, used and closed outside it.

// connModel is the balancer's side of the model. Guarded by LB.mu.
type connModel struct {
	pool    *conn.Table
	dialer  *conns.Dialer
	waiting map[uint64]*connWaiter // requests in line, by their ref
	nextRef uint64
	closing []*conns.Conn // closed by the model under mu, to close outside it
	stats   ConnState
}

// connWaiter is a request in line for a connection to backend i.
type connWaiter struct {
	i    int
	pick uint64
	ch   chan liveGrant // capacity 1: the hand-over never blocks under mu
}

// liveGrant is a model connection with its real one.
type liveGrant struct {
	id  conn.ID
	lc  *conns.Conn
	new bool
	hs  time.Duration // the handshake's emulated time when new
}

// ConnState is state.LBConns.
type ConnState = state.LBConns

// modelConns sets up the connection model when the lab asks for it.
func (l *LB) modelConns() {
	cfg, on := assemble.Conns(l.lab)
	if !on {
		return
	}
	pool, _ := conn.NewTable(cfg) // validated by the lab file
	var tlsCfg = l.cfg.ClientTLS
	if !l.lab.Network.TLS {
		tlsCfg = nil
	}
	d := &conns.Dialer{TLS: tlsCfg}
	if l.cfg.Dial != nil {
		d.Dial = l.cfg.Dial
	}
	l.conns = &connModel{pool: pool, dialer: d, waiting: map[uint64]*connWaiter{}}
	pool.OnClose = func(p conn.Pair, id conn.ID) {
		b := l.backends[p.To]
		if c := b.live[id]; c != nil {
			l.conns.closing = append(l.conns.closing, c)
			delete(b.live, id)
		}
	}
}

// takeClosing returns the connections the model closed, to close once mu
// is released. Caller holds mu.
func (l *LB) takeClosing() []*conns.Conn {
	if l.conns == nil {
		return nil
	}
	cs := l.conns.closing
	l.conns.closing = nil
	return cs
}

func closeAll(cs []*conns.Conn) {
	for _, c := range cs {
		c.Close()
	}
}

func pairTo(i int) conn.Pair { return conn.Pair{From: 0, To: int32(i)} }

// acquireConn finds attempt a's connection after its pick. Caller holds mu.
func (l *LB) acquireConn(a *attempt) {
	m := l.conns
	m.nextRef++
	g := m.pool.Acquire(a.start, pairTo(a.t.Server), m.nextRef)
	if g.Wait {
		w := &connWaiter{i: a.t.Server, pick: a.pick, ch: make(chan liveGrant, 1)}
		m.waiting[m.nextRef] = w
		a.ref, a.wait = m.nextRef, w.ch
		m.stats.Waits++
		return
	}
	a.grant = l.liveGrant(a.t.Server, a.pick, g)
}

// liveGrant is the real connection of model grant g to backend i, for the
// attempt with pick number pick. Caller holds mu.
func (l *LB) liveGrant(i int, pick uint64, g conn.Grant) liveGrant {
	b := l.backends[i]
	lg := liveGrant{id: g.Conn, lc: b.live[g.Conn], new: g.New}
	if g.New || lg.lc == nil {
		lg.lc = conns.New(b.Addr)
		b.live[g.Conn] = lg.lc
		lg.hs = l.handshake(b, pick)
		l.conns.stats.Opened++
		l.conns.stats.HandshakeMs += float64(lg.hs) / 1e6
	}
	return lg
}

// handshake is the emulated time of a handshake on the balancer's leg of
// the attempt with pick number pick. Caller holds mu.
func (l *LB) handshake(b *backend, pick uint64) time.Duration {
	return l.conns.pool.Config().Handshake.Time(toServer(l.net, l.cfg.Index, b.Name).Delay(pick, policy.BalancerOut))
}

// awaitConn waits, when a was put in line, until a connection is handed
// over (true) or the attempt's timeout passes (false: the caller answers
// 504 and gives back a connection handed over too late).
func (l *LB) awaitConn(a *attempt) bool {
	if a.wait == nil {
		return true
	}
	since := time.Now()
	defer func() {
		l.mu.Lock()
		l.conns.stats.WaitMs += float64(time.Since(since)) / 1e6
		l.mu.Unlock()
	}()
	var expire <-chan time.Time
	if a.timeout > 0 {
		t := time.NewTimer(time.Until(l.clock.Epoch().Add(a.start.Duration() + a.timeout)))
		defer t.Stop()
		expire = t.C
	}
	select {
	case a.grant = <-a.wait:
		return true
	case <-expire:
	case <-l.done:
	}
	l.mu.Lock()
	withdrawn := l.conns.pool.Withdraw(pairTo(a.t.Server), a.ref)
	if withdrawn {
		delete(l.conns.waiting, a.ref)
	}
	l.mu.Unlock()
	if !withdrawn {
		a.grant = <-a.wait // handed over just now
	}
	return false
}

// exchangeOnConn sends req over a's model connection: dialing it first when
// new (the real handshake inside the emulated one), dialing it again once
// when a warm one turns out closed by the backend; a failed exchange, or an
// answer that closes the connection, closes it.
func (l *LB) exchangeOnConn(a *attempt, req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time) error {
	g := &a.grant
	if g.new {
		start := time.Now()
		if err := g.lc.Open(l.conns.dialer, deadline); err != nil {
			a.broken = true
			return err
		}
		l.cfg.Waits.SleepUntil(pace.Hop, start.Add(g.hs))
	}
	err := g.lc.Do(req, resp, deadline, l.cfg.MaxRespBody)
	if err != nil && !g.new && g.lc.Stale(err) {
		hs := l.redialCost(a.b, a.pick)
		l.cfg.Waits.Sleep(pace.Hop, hs)
		a.redialed, a.redialCost = true, hs
		if err = g.lc.Reopen(l.conns.dialer, deadline); err == nil {
			err = g.lc.Do(req, resp, deadline, l.cfg.MaxRespBody)
		}
	}
	if err != nil || resp.ConnectionClose() {
		g.lc.Close()
		a.broken = true
	}
	return err
}

func (l *LB) redialCost(b *backend, pick uint64) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.handshake(b, pick)
}

// freeConn gives a's connection back to the model as its answer arrives
// (closed when broken or abandoned); a request in line gets it. Caller
// holds mu.
func (l *LB) freeConn(a *attempt, abandoned bool) {
	m := l.conns
	if m == nil || a.grant.lc == nil {
		return
	}
	if a.redialed {
		m.stats.Opened++
		m.stats.Redials++
		m.stats.HandshakeMs += float64(a.redialCost) / 1e6
	}
	p, id := pairTo(a.t.Server), a.grant.id
	var ho conn.Handoff
	if a.broken || abandoned {
		ho = m.pool.Discard(l.nowLocked(), p, id)
	} else {
		ho = m.pool.Release(l.nowLocked(), p, id)
	}
	if !ho.OK {
		return
	}
	w := m.waiting[ho.Ref]
	delete(m.waiting, ho.Ref)
	w.ch <- l.liveGrant(w.i, w.pick, ho.Grant)
}

// releaseUnused gives back a connection handed over to a request that had
// already given up waiting.
func (l *LB) releaseUnused(a *attempt) {
	l.mu.Lock()
	l.freeConn(a, false)
	cs := l.takeClosing()
	l.mu.Unlock()
	closeAll(cs)
}

// sweepPeriod says how often idle connections are swept: a quarter of the
// keepalive, within [10ms, 1s]; off without the model or with keepalive 0.
func (l *LB) sweepPeriod() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ka := l.lab.Network.Keepalive
	return min(max(ka/4, 10*time.Millisecond), time.Second), l.conns != nil && ka > 0
}

// sweepConns closes the connections idle past keepalive.
func (l *LB) sweepConns() {
	l.mu.Lock()
	l.conns.pool.Sweep(l.nowLocked())
	cs := l.takeClosing()
	l.mu.Unlock()
	closeAll(cs)
}

// connState is the model's figures for GET /admin/state. Caller holds mu.
func (l *LB) connState() *ConnState {
	if l.conns == nil {
		return nil
	}
	s := l.conns.stats
	s.Accepted = l.accepted.Load()
	return &s
}

// listenData wraps the data listener: it counts accepted connections and
// serves TLS under network.tls.
func (l *LB) listenData(ln net.Listener) net.Listener {
	cfg := l.cfg.TLS
	if !l.lab.Network.TLS {
		cfg = nil
	}
	return conns.Listen(turns.Listen(ln), cfg, &l.accepted) // turns: a read less a request
}

// gaveUpWaiting answers an attempt whose timeout passed while it waited for
// a connection: 504, reported to the pipeline as a timeout, as when the
// backend is too slow. A connection handed over meanwhile goes back.
func (l *LB) gaveUpWaiting(ctx *fasthttp.RequestCtx, a *attempt) {
	if a.grant.lc != nil {
		l.releaseUnused(a)
		a.grant = liveGrant{}
	}
	l.report(a, policy.Timeout, true)
	a.b.fw.Answered(int(policy.Timeout), a.timeout)
	l.hop(a, policy.BalancerBack)
	ctx.Response.Header.Set(wire.HServer, a.b.Name)
	ctx.Response.Header.Set(wire.HReason, "timeout")
	wire.WriteError(ctx, fasthttp.StatusGatewayTimeout, "%s: no connection free within %v (network.max_conns)", a.b.Name, a.timeout)
}
