package backend

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

// serveData answers one request on the data port: GET /healthz is a health
// check, GET /probe a balancer's probe, every other request is a job for
// the emulated server.
func (b *Backend) serveData(ctx *fasthttp.RequestCtx) {
	if string(ctx.Path()) == "/healthz" && (ctx.IsGet() || ctx.IsHead()) {
		b.health(ctx)
		return
	}
	if string(ctx.Path()) == wire.ProbePath && ctx.IsGet() {
		b.probe(ctx)
		return
	}
	job, info, err := b.parseJob(ctx)
	if err != nil {
		wire.BadRequest(ctx, "%v", err)
		return
	}
	w := &waiter{ch: make(chan outcome, 1), req: info.req, hasReq: info.hasReq}
	id := b.arrive(job, w)
	b.answer(ctx, info, b.await(ctx, id, w))
}

// reqInfo is what the answer repeats from the request.
type reqInfo struct {
	request string // X-Lab-Request as sent
	req     uint64 // ... when it is a number (for /admin/cancel)
	hasReq  bool
	try     int // X-Lab-Try: the attempt's number in its request (1 when absent)
	// from is who sent it, whose zone the hop back reaches (zones.go)
	from sender
	kind server.Kind
	// loadFormat is the form the caller asked the load report in
	// (endpoint-load-metrics-format), NoLoad when it did not
	loadFormat wire.LoadFormat
}

// parseJob builds the job from the request headers (docs/admin-api-backend.md):
// without X-Lab-Work the server draws the work, without X-Lab-Key the key
// is a hash of the path.
func (b *Backend) parseJob(ctx *fasthttp.RequestCtx) (server.Job, reqInfo, error) {
	h := &ctx.Request.Header
	info := reqInfo{request: string(h.Peek(wire.HRequest)), kind: wire.ParseKind(h.Peek(wire.HAttempt))}
	info.req, info.hasReq = wire.ParseUint(h.Peek(wire.HRequest))
	info.loadFormat = wire.LoadFormatOf(h.Peek(wire.HLoadMetricsFormat))
	info.try = 1
	info.from = senderOf(h)
	if n, ok := wire.ParseUint(h.Peek(wire.HTry)); ok && n >= 1 && n < 16 {
		info.try = int(n)
	}
	job := server.Job{Work: -1, Key: keyOf(ctx), Kind: info.kind}
	if info.hasReq { // else arrive draws by the backend's own job number
		job.Pick = policy.PickNumber(info.req, info.try)
	}
	var err error
	if job.Fault, err = faultOf(ctx); err != nil {
		return job, info, err
	}
	if v := h.Peek(wire.HWork); len(v) > 0 {
		d, ok := wire.ParseWork(v)
		if max := labfile.Bounds.Work.Max; !ok || d > max { // one request may not hold a worker for longer
			return job, info, fmt.Errorf("%s: %q is not a duration in [0, %v] like 12.5ms", wire.HWork, v, max)
		}
		job.Work = d
	}
	if v := h.Peek(wire.HDeadline); len(v) > 0 {
		ns, ok := wire.ParseUint(v)
		if !ok || ns > math.MaxInt64 {
			return job, info, fmt.Errorf("%s: %q is not a time in Unix nanoseconds", wire.HDeadline, v)
		}
		// 0 means "no deadline" to the core, so a deadline already past is 1.
		job.Deadline = max(1, clock.Instant(int64(ns)-b.clk.Epoch().UnixNano()))
	}
	return job, info, nil
}

// faultOf reads the fault a request asks for: the X-Lab-Fault header
// (status=503:10,delay=50ms:25) or the query parameters status and delay
// (?status=503:10&delay=50ms:25), not both. The error names the header or
// the parameter.
func faultOf(ctx *fasthttp.RequestCtx) (server.Fault, error) {
	hdr := ctx.Request.Header.Peek(wire.HFault)
	q := ctx.QueryArgs()
	status, delay := q.Peek("status"), q.Peek("delay")
	query := len(status) > 0 || len(delay) > 0
	switch {
	case len(hdr) > 0 && query:
		return server.Fault{}, fmt.Errorf("give a fault once: the %s header or the query parameters status and delay, not both", wire.HFault)
	case len(hdr) > 0:
		f, err := server.ParseFault(string(hdr))
		if err != nil {
			return f, fmt.Errorf("%s: %v", wire.HFault, err)
		}
		return f, nil
	case query:
		f, err := server.ParseFaultParams(string(status), string(delay))
		if err != nil {
			return f, fmt.Errorf("query parameter %v", err)
		}
		return f, nil
	}
	return server.Fault{}, nil
}

// keyOf is X-Lab-Key (a number, or else the hash of its text), or the hash
// of the path.
func keyOf(ctx *fasthttp.RequestCtx) uint64 {
	k := ctx.Request.Header.Peek(wire.HKey)
	if len(k) == 0 {
		return rng.StringHash(string(ctx.Path()))
	}
	if v, ok := wire.ParseUint(k); ok {
		return v
	}
	return rng.StringHash(string(k))
}

// await blocks until job id's reply. With CancelOnClose it watches the
// connection meanwhile and cancels the job if the client goes away.
func (b *Backend) await(ctx *fasthttp.RequestCtx, id uint64, w *waiter) outcome {
	select {
	case o := <-w.ch:
		return o // answered at arrival: nothing to watch
	default:
	}
	if !b.cfg.CancelOnClose {
		return <-w.ch
	}
	stop := watchClose(ctx, func() { b.cancel(id) })
	o := <-w.ch
	stop()
	return o
}

// answer writes the reply after holding it until its At plus the hop. A job
// lost to a kill (or refused while the listener closes) gets no response:
// its connection is reset, as a dead process's would be.
func (b *Backend) answer(ctx *fasthttp.RequestCtx, info reqInfo, o outcome) {
	r := o.Reply
	b.observeReply(r)
	if r.Status == server.Lost || r.Status == server.Refused {
		dropConn(ctx)
		return
	}
	if !b.hold(b.leaves(r, info)) {
		dropConn(ctx) // the drain time ran out first: the answer is lost
		return
	}
	code := httpCode(&r)
	h := &ctx.Response.Header
	var num [32]byte
	h.SetCanonical(keyServer, b.name)
	h.SetCanonical(keyQueueMs, appendMs(num[:0], r.Queue))
	h.SetCanonical(keyServiceMs, appendMs(num[:0], r.Service))
	if r.Reason != "" {
		h.SetCanonical(keyReason, []byte(r.Reason))
	}
	if info.loadFormat != wire.NoLoad { // asked for with endpoint-load-metrics-format
		var orca [192]byte
		h.SetCanonical(keyLoadMetrics, wire.AppendLoad(orca[:0], o.load, info.loadFormat))
	}
	h.SetCanonical(keyHit, strconv.AppendBool(num[:0], r.Hit))
	switch {
	case r.Reason == server.ReasonFault && code >= 300:
		wire.WriteError(ctx, code, "status %d asked for by the request's fault (%s or ?status=)", code, wire.HFault)
		return
	case code != fasthttp.StatusOK && r.Reason != server.ReasonFault:
		wire.WriteError(ctx, code, "%s", r.Reason)
		return
	}
	writeReply(ctx, code, &wire.Reply{
		Server: b.cfg.Name, Request: info.request, Attempt: info.kind.String(), Status: code, Reason: r.Reason,
		QueueMs: msFloat(r.Queue), ServiceMs: msFloat(r.Service), CacheHit: r.Hit,
	})
}

// httpCode is the status a reply is answered with: the fault's, or the
// status's. Dropped (expired) and Cancelled jobs, which have no HTTP code in
// the core, answer 503 with their reason: their client has usually gone,
// and a response keeps a connection that is still open usable.
func httpCode(r *server.Reply) int {
	if c := r.HTTPCode(); c != 0 {
		return c
	}
	return fasthttp.StatusServiceUnavailable
}

// dropConn closes the connection without a response once the handler
// returns; on TCP with linger 0, so the client sees a reset.
func dropConn(ctx *fasthttp.RequestCtx) {
	raw := wire.NetConn(ctx.Conn())
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(net.Conn) {
		if tc, ok := raw.(interface{ SetLinger(int) error }); ok { // TCP, wrapped or not
			_ = tc.SetLinger(0)
		}
	})
}

// health answers the data port's probe: 200 when up, 500 in fail mode,
// 503 when leaving.
func (b *Backend) health(ctx *fasthttp.RequestCtx) {
	var snap server.Snapshot
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		snap = b.core.Snapshot(now)
		return out
	})
	switch {
	case !snap.Up:
		dropConn(ctx)
	case snap.Failing:
		wire.WriteJSON(ctx, fasthttp.StatusInternalServerError, map[string]string{"status": "failing", "server": b.cfg.Name})
	case b.leaving.Load():
		wire.WriteJSON(ctx, fasthttp.StatusServiceUnavailable, map[string]string{"status": "leaving", "server": b.cfg.Name})
	default:
		wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]string{"status": "ok", "server": b.cfg.Name})
	}
}

// probe answers a probing balancer (GET /probe): the server's requests in
// flight now and its latency estimate at that many (server.Server.Probe),
// at once, without a worker or a queue place. A server that is down
// answers nothing: its connection is reset, as for any request.
func (b *Backend) probe(ctx *fasthttp.RequestCtx) {
	var p load.Probe
	up := false
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		out = b.core.Advance(now, out) // in flight as of now, not as of the last event
		if up = b.core.Up(); up {
			p = b.core.Probe()
		}
		return out
	})
	if !up {
		dropConn(ctx)
		return
	}
	var body [64]byte
	ctx.SetContentType("application/json")
	ctx.SetBody(wire.AppendProbe(body[:0], p))
}

func msFloat(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

func appendMs(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, msFloat(d), 'f', -1, 64)
}

// hold waits until instant t before an answer leaves; it returns false, at
// once, if the drain time of a shutdown runs out meanwhile, so that SIGTERM
// ends the process within its drain limit whatever answer is on its way.
func (b *Backend) hold(t clock.Instant) bool {
	return b.cfg.Waits.WaitUntil(pace.Answer, b.wallTime(t), b.drainOver)
}
