package lb

import (
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

// attempt is what one request takes from under the lock: the ticket, the
// instant it was picked and the settings in force then.
type attempt struct {
	t       policy.Ticket
	b       *backend // nil when no server was eligible
	start   clock.Instant
	timeout time.Duration
	// net is the hop to the server and back (with zones, their link's),
	// back the hop to the client and base the lab's network at the pick
	// (what the probes' hops are drawn from, each to its own server).
	net, back, base policy.Network
	pick            uint64 // the pick number: its hops' jitter draws
	// cut: the link to the picked server's zone is cut (a partition): it
	// is answered 502 at once, never forwarded
	cut bool
	// perCall: the algorithm weighs servers by the reports the answers
	// carry (policy.Balancer.Reports); load is the one this answer carried
	perCall bool
	load    load.Report

	// probes: the backends the pick probes (probes.go); nil for an
	// algorithm that does not probe
	probes []probeTarget

	// With connections modelled (conns.go): the connection it rides, or
	// the line it waits in (ref, wait); whether the connection broke, and
	// whether a closed one was dialed again (at what emulated cost).
	grant      liveGrant
	ref        uint64
	wait       chan liveGrant
	broken     bool
	redialed   bool
	redialCost time.Duration
}

// serveProxy is the hot path: pick, hop, forward, report, hop, answer.
func (l *LB) serveProxy(ctx *fasthttp.RequestCtx) {
	req, client := l.request(ctx)
	a := l.pick(req, client, ctx.Request.Header.Peek(wire.HExclude))
	l.sendProbes(&a)
	if a.b == nil {
		l.obs.NoBackend()
		l.hop(&a, policy.BalancerBack)
		ctx.Response.Header.Set(wire.HReason, "no-server")
		wire.WriteError(ctx, fasthttp.StatusServiceUnavailable, "no eligible server")
	} else if a.cut {
		l.partitioned(ctx, &a)
	} else if !l.awaitConn(&a) {
		l.gaveUpWaiting(ctx, &a)
	} else {
		l.hop(&a, policy.BalancerOut)
		res := l.forward(ctx, &a)
		l.hop(&a, policy.BalancerBack)
		if ce := l.log.Check(zap.DebugLevel, "proxied"); ce != nil {
			ce.Write(zap.Uint64("pick", a.pick), zap.String("server", a.b.Name),
				zap.Stringer("result", res), zap.Bool("probe", a.t.Probe))
		}
	}
	ctx.Response.Header.Set(wire.HBalancer, l.cfg.Name)
}

// request reads the pick inputs from the headers: the pick number (from the
// request number and X-Lab-Try, as the loadgen and the simulator number
// attempts), the affinity key and the client id (both as the workload
// numbers them when decimal, else hashed; the key defaults to the path's
// hash).
func (l *LB) request(ctx *fasthttp.RequestCtx) (balance.Request, uint64) {
	h := &ctx.Request.Header
	id, ok := number(h.Peek(wire.HRequest))
	if !ok {
		id = l.seq.Add(1)
		var buf [20]byte
		h.SetBytesV(wire.HRequest, strconv.AppendUint(buf[:0], id, 10))
	}
	seq := policy.PickNumber(id, 1)
	if n, ok := wire.ParseUint(h.Peek(wire.HTry)); ok && n >= 1 && n < 16 {
		seq = policy.PickNumber(id, int(n))
	} else if k := wire.ParseKind(h.Peek(wire.HAttempt)); k == server.Retry || k == server.Hedge {
		// A retry or hedge that does not say which attempt it is (not the
		// loadgen's) must not repeat the first attempt's draw.
		seq = rng.Hash(seq, uint64(k), l.seq.Add(1))
	}
	key, ok := number(h.Peek(wire.HKey))
	if !ok {
		key = hashBytes(ctx.Path())
	}
	client, ok := number(h.Peek(wire.HClient))
	if !ok {
		client = key
	}
	return balance.Request{Seq: seq, Key: key}, client
}

// number parses a decimal header value, else hashes a non-empty one.
func number(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	if n, err := fasthttp.ParseUint(b); err == nil {
		return uint64(n), true
	}
	return hashBytes(b), true
}

// hashBytes is rng.StringHash (FNV-1a) over bytes, without a string copy.
func hashBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// pick runs the pipeline under the lock, at an instant read under it, and
// copies out what the rest of the request needs.
func (l *LB) pick(req balance.Request, client uint64, exclude []byte) attempt {
	var cs []*conns.Conn
	defer func() { closeAll(cs) }() // after the unlock: connections the model closed as idle
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.nowLocked()
	if l.hashClient {
		req.Key = client
	}
	ex := -1
	if i, ok := l.byName[string(exclude)]; ok && len(exclude) > 0 {
		ex = i
	}
	a := attempt{t: l.bal.Pick(now, req, ex), start: now, timeout: l.bal.Timeout(),
		net: l.net, back: l.net, base: l.net, pick: req.Seq}
	a.perCall, _ = l.bal.Reports()
	a.back = toClient(l.net, l.cfg.Index, client)
	l.probeTargets(now, req, &a)
	if a.t.Valid {
		a.b = l.backends[a.t.Server]
		a.net = toServer(l.net, l.cfg.Index, a.b.Name)
		a.cut = cutTo(l.net, l.cfg.Index, a.b.Name)
		a.b.picks++
		l.picks++
		if l.conns != nil && !a.cut {
			l.acquireConn(&a)
			cs = l.takeClosing()
		}
	}
	return a
}

// hop injects one network hop of the attempt, timed by the precise
// scheduler (Go's own timers end a sleep up to a millisecond late).
func (l *LB) hop(a *attempt, leg policy.Leg) {
	n := &a.net
	if leg == policy.BalancerBack {
		n = &a.back
	}
	if d := n.Delay(a.pick, leg); d > 0 {
		l.cfg.Waits.Sleep(pace.Hop, d)
	}
}

// forward sends the request to the picked backend within the attempt's
// deadline (counted from the pick, so it covers the outbound hop), reports
// the result to the pipeline and leaves the answer in ctx.Response.
func (l *LB) forward(ctx *fasthttp.RequestCtx, a *attempt) policy.Result {
	req, resp := &ctx.Request, &ctx.Response
	closeAfter := req.Header.ConnectionClose()
	req.Header.ResetConnectionClose() // keep the pooled connection
	stripHopByHop(&req.Header)        // fields of the client's connection, not of the request
	if !req.Header.IsHTTP11() {
		req.Header.Set(fasthttp.HeaderConnection, "keep-alive") // the lb's own option for its pooled connection
	}
	if a.t.Probe {
		req.Header.Set(wire.HAttempt, "probe")
		a.b.fw.ProbeSent()
	}
	req.Header.Set(wire.HBalancer, l.cfg.Name)
	asked := a.perCall && len(req.Header.Peek(wire.HLoadMetricsFormat)) == 0
	if asked { // the algorithm reads the backend's report: ask for it, unless the client already has
		req.Header.Set(wire.HLoadMetricsFormat, "TEXT")
	}
	var err error
	var deadline time.Time // zero: none
	if a.timeout > 0 {
		deadline = l.clock.Epoch().Add(a.start.Duration() + a.timeout)
		tightenDeadline(&req.Header, deadline) // the server may drop it past the balancer's patience too
	}
	switch {
	case a.grant.lc != nil:
		err = l.exchangeOnConn(a, req, resp, deadline)
	case a.timeout > 0:
		err = a.b.hc.DoDeadline(req, resp, deadline)
	default:
		err = a.b.hc.Do(req, resp)
	}
	res := wire.Classify(err, resp.StatusCode(), resp.Header.Peek(wire.HReason))
	if a.perCall && err == nil {
		if v := resp.Header.Peek(wire.HLoadMetrics); len(v) > 0 {
			a.load, _ = wire.ParseLoad(v) // a report it cannot read is none
		}
		if asked { // the client did not ask for it: its answer is as without the lb
			resp.Header.Del(wire.HLoadMetrics)
		}
	}
	rtt := l.report(a, res, err != nil && res == policy.Timeout)
	a.b.fw.Answered(int(res), rtt)
	if err != nil {
		failed(ctx, a, res, err)
	}
	if len(resp.Header.Peek(wire.HServer)) == 0 {
		resp.Header.Set(wire.HServer, a.b.Name) // a backend that is not lblab's
	}
	stripHopByHop(&resp.Header)                    // fields of the backend's connection
	resp.Header.SetProtocol(req.Header.Protocol()) // answer in the client's HTTP version
	resp.Header.ResetConnectionClose()
	if closeAfter {
		ctx.SetConnectionClose()
	}
	return res
}

// report hands the result to the pipeline that issued the ticket and
// returns the attempt's time from pick to answer (the timeout itself when
// the balancer gave up waiting).
func (l *LB) report(a *attempt, res policy.Result, gaveUp bool) time.Duration {
	var cs []*conns.Conn
	defer func() { closeAll(cs) }() // after the unlock
	l.mu.Lock()
	defer l.mu.Unlock()
	l.freeConn(a, gaveUp)
	cs = l.takeClosing()
	now := l.nowLocked()
	rtt := now.Sub(a.start)
	if gaveUp && a.timeout > 0 {
		rtt = a.timeout
	}
	if a.load.Valid && a.t.Valid { // the backend's report the answer carried (wrr-orca), as it arrives
		a.load.At = now
		l.bal.Report(a.t.Server, a.load)
	}
	l.bal.Done(now, a.t, res, rtt) // a ticket of load figures started over since is ignored
	return rtt
}

// tightenDeadline lowers X-Lab-Deadline to deadline when the client's is
// later or absent, as the simulator's balancer does.
func tightenDeadline(h *fasthttp.RequestHeader, deadline time.Time) {
	ns := uint64(deadline.UnixNano())
	if cur, ok := wire.ParseUint(h.Peek(wire.HDeadline)); ok && cur <= ns {
		return
	}
	var buf [20]byte
	h.SetBytesV(wire.HDeadline, strconv.AppendUint(buf[:0], ns, 10))
}

// partitioned answers an attempt whose server is across a cut link: 502
// at once, reported to the pipeline as an error (a refused connection),
// over the hop back to the client.
func (l *LB) partitioned(ctx *fasthttp.RequestCtx, a *attempt) {
	l.report(a, policy.Error, false)
	a.b.fw.Answered(int(policy.Error), 0)
	l.hop(a, policy.BalancerBack)
	ctx.Response.Header.Set(wire.HServer, a.b.Name)
	ctx.Response.Header.Set(wire.HReason, "partition")
	wire.WriteError(ctx, fasthttp.StatusBadGateway, "%s: the link to its zone is cut (network.partition)", a.b.Name)
}

// failed answers a transport failure: 504 for a timeout, 502 otherwise.
func failed(ctx *fasthttp.RequestCtx, a *attempt, res policy.Result, err error) {
	ctx.Response.Reset()
	ctx.Response.Header.Set(wire.HServer, a.b.Name)
	if res == policy.Timeout {
		ctx.Response.Header.Set(wire.HReason, "timeout")
		if a.timeout > 0 {
			wire.WriteError(ctx, fasthttp.StatusGatewayTimeout, "%s: no answer within %v", a.b.Name, a.timeout)
		} else { // a dial timeout without an attempt timeout
			wire.WriteError(ctx, fasthttp.StatusGatewayTimeout, "%s: %v", a.b.Name, err)
		}
		return
	}
	ctx.Response.Header.Set(wire.HReason, "bad-gateway")
	wire.WriteError(ctx, fasthttp.StatusBadGateway, "%s: %v", a.b.Name, err)
}
