package lb

import (
	"errors"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/shell/wire"
)

// attempt is what one request takes from under the lock: the ticket and
// the settings in force when it was picked.
type attempt struct {
	t       policy.Ticket
	gen     uint64
	b       *backend // nil when no server was eligible
	timeout time.Duration
	hop     time.Duration
	jitter  time.Duration
	seed    uint64
	seq     uint64
}

// Salts of the two hops' jitter draws (balancer -> server, -> client).
const (
	hopOut  = 0x6f7574
	hopBack = 0x6261636b
)

// serveProxy is the hot path: pick, hop, forward, report, hop, answer.
func (l *LB) serveProxy(ctx *fasthttp.RequestCtx) {
	req, client := l.request(ctx)
	start := l.clock.Now()
	a := l.pick(start, req, client, ctx.Request.Header.Peek(wire.HExclude))
	if a.b == nil {
		l.obs.NoBackend()
		a.sleep(hopBack)
		ctx.Response.Header.Set(wire.HReason, "no-server")
		wire.WriteError(ctx, fasthttp.StatusServiceUnavailable, "no eligible server")
	} else {
		a.sleep(hopOut)
		res := l.forward(ctx, &a, start)
		a.sleep(hopBack)
		if ce := l.log.Check(zap.DebugLevel, "proxied"); ce != nil {
			ce.Write(zap.Uint64("seq", a.seq), zap.String("server", a.b.Name),
				zap.Stringer("result", res), zap.Bool("probe", a.t.Probe))
		}
	}
	ctx.Response.Header.Set(wire.HBalancer, l.cfg.Name)
}

// request reads the pick inputs from the headers: the request number, the
// affinity key and the client id (both as the workload numbers them when
// decimal, else hashed; the key defaults to the path's hash).
func (l *LB) request(ctx *fasthttp.RequestCtx) (balance.Request, uint64) {
	h := &ctx.Request.Header
	id, ok := number(h.Peek(wire.HRequest))
	if !ok {
		id = l.seq.Add(1)
		var buf [20]byte
		h.SetBytesV(wire.HRequest, strconv.AppendUint(buf[:0], id, 10))
	}
	// The simulator numbers attempt n of request id as id*16+n, so a first
	// attempt draws what it draws there; a retry or hedge (same id) must not
	// repeat the first attempt's draw.
	seq := id*16 + 1
	if k := wire.ParseKind(h.Peek(wire.HAttempt)); k == server.Retry || k == server.Hedge {
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

// pick runs the pipeline under the lock and copies out what the rest of the
// request needs.
func (l *LB) pick(now clock.Instant, req balance.Request, client uint64, exclude []byte) attempt {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lab.Balancers.HashOn == "client" {
		req.Key = client
	}
	ex := -1
	if i, ok := l.byName[string(exclude)]; ok && len(exclude) > 0 {
		ex = i
	}
	a := attempt{t: l.bal.Pick(now, req, ex), gen: l.gen, timeout: l.bal.Timeout(),
		hop: l.lab.Network.Hop, jitter: l.lab.Network.Jitter, seed: l.lab.Seed, seq: req.Seq}
	if a.t.Valid {
		a.b = l.backends[a.t.Server]
		a.b.picks++
		l.picks++
	}
	return a
}

// sleep injects one network hop: hop plus a uniform jitter draw.
func (a *attempt) sleep(salt uint64) {
	d := a.hop
	if a.jitter > 0 {
		d += time.Duration(float64(a.jitter) * rng.HashFloat(a.seed, a.seq, salt))
	}
	if d > 0 {
		time.Sleep(d)
	}
}

// forward sends the request to the picked backend within the attempt's
// deadline (counted from the pick, so it covers the outbound hop), reports
// the result to the pipeline and leaves the answer in ctx.Response.
func (l *LB) forward(ctx *fasthttp.RequestCtx, a *attempt, start clock.Instant) policy.Result {
	req, resp := &ctx.Request, &ctx.Response
	closeAfter := req.Header.ConnectionClose()
	req.Header.ResetConnectionClose() // keep the pooled connection
	if a.t.Probe {
		req.Header.Set(wire.HAttempt, "probe")
		a.b.fw.ProbeSent()
	}
	req.Header.Set(wire.HBalancer, l.cfg.Name)
	var err error
	if a.timeout > 0 {
		err = a.b.hc.DoDeadline(req, resp, l.clock.Epoch().Add(start.Duration()+a.timeout))
	} else {
		err = a.b.hc.Do(req, resp)
	}
	end := l.clock.Now()
	res, rtt := classify(err, resp.StatusCode(), resp.Header.Peek(wire.HReason)), end.Sub(start)
	if err != nil && res == policy.Timeout && a.timeout > 0 {
		rtt = a.timeout
	}
	l.report(end, a, res, rtt)
	a.b.fw.Answered(int(res), rtt)
	if err != nil {
		failed(ctx, a, res, err)
	}
	if len(resp.Header.Peek(wire.HServer)) == 0 {
		resp.Header.Set(wire.HServer, a.b.Name) // a backend that is not lblab's
	}
	resp.Header.SetProtocol(req.Header.Protocol()) // answer in the client's HTTP version
	resp.Header.ResetConnectionClose()
	if closeAfter {
		ctx.SetConnectionClose()
	}
	return res
}

// report hands the result to the pipeline that issued the ticket.
func (l *LB) report(now clock.Instant, a *attempt, res policy.Result, rtt time.Duration) {
	l.mu.Lock()
	if a.gen == l.gen {
		l.bal.Done(now, a.t, res, rtt)
	}
	l.mu.Unlock()
}

// classify maps a transport error or the backend's status (and its
// X-Lab-Reason) to a result.
func classify(err error, status int, reason []byte) policy.Result {
	if err != nil {
		var te interface{ Timeout() bool }
		if errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &te) && te.Timeout() {
			return policy.Timeout
		}
		return policy.Error
	}
	switch {
	case status == fasthttp.StatusServiceUnavailable && string(reason) == "cancelled":
		return policy.Cancelled // withdrawn while queued: no verdict on the backend
	case status == fasthttp.StatusServiceUnavailable:
		return policy.Rejected
	case status == fasthttp.StatusGatewayTimeout:
		return policy.Timeout
	case status >= 500:
		return policy.Error
	}
	return policy.OK
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
