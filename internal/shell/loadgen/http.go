package loadgen

import (
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

var errClosed = errors.New("loadgen: shutting down")

// endpoint is one host the loadgen talks to (a balancer URL, or a server in
// client-side mode), with its own bounded pool of connections.
type endpoint struct {
	name string
	spec endpointSpec
	pool *connPool
}

// transport owns the HTTP side: endpoints, every connection they opened (so
// shutdown can close them and unblock attempts in flight) and the attempt
// goroutines.
type transport struct {
	dial    func(addr string) (net.Conn, error)
	token   string        // presented to the admin APIs (Config.Token)
	dialer  *conns.Dialer // the model's connections (conns.go): tracked dials, TLS when on
	closing atomic.Bool
	quit    chan struct{} // closed when the loop stops reading results
	mu      sync.Mutex
	conns   map[*trackedConn]struct{}
	eps     []*endpoint    // every endpoint made (their pools' idle connections: reaper)
	wg      sync.WaitGroup // every goroutine the transport started
	cancels sync.WaitGroup // the cancellations among them
	pool    workerPool
	waits   *pace.Scheduler // times the injected hops
	// inline, when set, takes an answer in on the worker that got it
	// (loop.inline): taken false when the loop's state is busy or the loop
	// has stopped (the answer is then posted), next the attempt the answer
	// started, which the worker runs itself.
	inline func(r *result) (next job, has, taken bool)
}

// task is one attempt for a worker, and where its answer goes.
type task struct {
	j   job
	out chan<- result
}

func newTransport(dial func(string) (net.Conn, error), token string, tlsCfg *tls.Config, waits *pace.Scheduler) *transport {
	if dial == nil {
		d := &net.Dialer{Timeout: 3 * time.Second}
		dial = func(addr string) (net.Conn, error) { return d.Dial("tcp", addr) }
	}
	tr := &transport{dial: dial, token: token, quit: make(chan struct{}), conns: map[*trackedConn]struct{}{}, waits: waits}
	tr.dialer = &conns.Dialer{Dial: tr.dialTracked, TLS: tlsCfg}
	return tr
}

// endpoint makes the endpoint at spec with a pool of at most maxConns
// connections. With every connection busy an attempt waits for one, until
// its own deadline: the loop's in-flight cap keeps first attempts from
// queueing there; retries and hedges of requests already out may. The most
// recently used idle connection goes first (LIFO): taking the oldest spreads
// the load over every connection a burst ever opened, so after a stall that
// opened thousands each request paid a cold socket; with LIFO the surplus
// goes unused and is closed when idle. Nothing is retried on another
// connection: retries are the policy's business. Over TLS only modelled
// connections (conns.go) shake hands; these are plain TCP.
func (tr *transport) endpoint(name string, spec endpointSpec, maxConns int) *endpoint {
	ep := &endpoint{name: name, spec: spec, pool: newConnPool(spec.addr, &conns.Dialer{Dial: tr.dialTracked}, maxConns, tr.quit)}
	tr.mu.Lock()
	tr.eps = append(tr.eps, ep)
	tr.mu.Unlock()
	return ep
}

// reapIdle closes the endpoints' connections idle too long (all: every
// idle one).
func (tr *transport) reapIdle(all bool) {
	tr.mu.Lock()
	eps := tr.eps
	tr.mu.Unlock()
	for _, ep := range eps {
		ep.pool.reapIdle(all)
	}
}

func (tr *transport) dialTracked(addr string) (net.Conn, error) {
	if tr.closing.Load() {
		return nil, errClosed
	}
	c, err := tr.dial(addr)
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, tr: tr}
	tr.mu.Lock()
	tr.conns[tc] = struct{}{}
	tr.mu.Unlock()
	return tc, nil
}

// shutdown refuses new connections and closes the open ones: attempts still
// in flight fail at once instead of waiting for their deadline.
func (tr *transport) shutdown() {
	tr.closing.Store(true)
	tr.mu.Lock()
	conns := make([]*trackedConn, 0, len(tr.conns))
	for c := range tr.conns {
		conns = append(conns, c)
	}
	tr.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

type trackedConn struct {
	net.Conn
	tr     *transport
	once   sync.Once
	rd, wd time.Time // the deadlines set last (its one user at a time sets them)
}

// deadlineSlack: a deadline this close to the one already set is left as
// it is. fasthttp sets both deadlines on every request, from a timeout it
// took off the clock, so a run's attempts (whose deadlines are mostly the
// run's end) ask for nearly the same instant each time; each setting
// re-arms a runtime timer under its lock (2-3% of the loadgen's CPU in a
// closed loop against nginx). An exchange's deadline is its call's plus
// httpGrace (a second), so a millisecond either way changes nothing seen.
const deadlineSlack = time.Millisecond

// near reports whether deadline t may stay at set.
func near(t, set time.Time) bool {
	if t.IsZero() || set.IsZero() {
		return t.IsZero() == set.IsZero()
	}
	d := t.Sub(set)
	return d < deadlineSlack && d > -deadlineSlack
}

func (c *trackedConn) SetReadDeadline(t time.Time) error {
	if near(t, c.rd) {
		return nil
	}
	if err := c.Conn.SetReadDeadline(t); err != nil {
		return err
	}
	c.rd = t
	return nil
}

func (c *trackedConn) SetWriteDeadline(t time.Time) error {
	if near(t, c.wd) {
		return nil
	}
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	c.wd = t
	return nil
}

func (c *trackedConn) SetDeadline(t time.Time) error {
	if near(t, c.rd) && near(t, c.wd) {
		return nil
	}
	if err := c.Conn.SetDeadline(t); err != nil {
		return err
	}
	c.rd, c.wd = t, t
	return nil
}

func (c *trackedConn) Close() error {
	var err error
	c.once.Do(func() {
		c.tr.mu.Lock()
		delete(c.tr.conns, c)
		c.tr.mu.Unlock()
		err = c.Conn.Close()
	})
	return err
}

// errPartition is the error of an attempt whose first hop crosses a cut
// link (network.partition).
var errPartition = errors.New("the link to its zone is cut (network.partition)")

// job is everything an attempt goroutine needs: it never touches loop state.
type job struct {
	target   int
	h        uint64
	ep       *endpoint
	tmpl     *template // method, path, headers, body (read-only, shared)
	plain    bool      // no X-Lab-* headers
	sendAt   time.Time // after the client -> balancer hop; zero: no hop, sent at once
	deadline time.Time // give up on the HTTP exchange here
	reject   bool      // no eligible server (client-side): answer 503 after the hop
	cut      bool      // its first hop crosses a cut link (network.partition): an error at once
	seq      uint64    // the request (X-Lab-Request)
	try      int       // its attempt number (X-Lab-Try): the lb and backend derive the pick number
	client   int
	key      uint64
	work     time.Duration // < 0: none sent
	kind     server.Kind
	labDL    int64        // X-Lab-Deadline, unix ns; 0 = none
	exclude  string       // X-Lab-Exclude; "" = none
	fault    server.Fault // X-Lab-Fault; zero = none

	// With connections modelled (conns.go): the real connection the model
	// chose, whether to dial it first, and what a handshake costs when a
	// reused one turns out closed and is dialed again.
	conn   *conns.Conn
	dial   bool
	redial time.Duration
}

// result is an attempt's answer, posted back to the loop.
type result struct {
	target  int
	h       uint64
	status  int // 0 when err is set
	err     error
	res     policy.Result // status, X-Lab-Reason and err as the policies read them
	server  string
	load    load.Report   // the server's load report the answer carried (endpoint-load-metrics), At unset
	queue   time.Duration // X-Lab-Queue-Ms
	service time.Duration // X-Lab-Service-Ms
	timed   bool          // both were given
	onWire  bool          // an HTTP exchange was tried (not a client-side "no server")
	lblab   bool          // the answer said X-Lab-Server or X-Lab-Balancer

	broken     bool          // its connection failed or was closed: the model closes it too
	redialed   bool          // its warm connection was found closed and dialed again ...
	redialCost time.Duration // ... at this emulated cost
}

// attempt performs one attempt and returns its answer; ex is the worker's
// request and response, kept from one attempt to the next.
func (tr *transport) attempt(j *job, ex *exchangeBufs) result {
	r := result{target: j.target, h: j.h}
	var dialErr error
	if j.dial && !tr.closing.Load() { // a new connection: the real handshake within the emulated one
		dialErr = j.conn.Open(tr.dialer, j.deadline)
	}
	if !j.sendAt.IsZero() {
		tr.waits.SleepUntil(pace.Hop, j.sendAt) // the injected network hop (and handshake)
	}
	switch {
	case j.reject:
		r.status, r.res = fasthttp.StatusServiceUnavailable, policy.Rejected
	case j.cut:
		r.err, r.res = errPartition, policy.Error
	case tr.closing.Load():
		r.err, r.res, r.broken = errClosed, policy.Error, j.conn != nil
	case dialErr != nil:
		r.err, r.res, r.broken, r.onWire = dialErr, wire.Classify(dialErr, 0, nil), true, true
	default:
		r.onWire = true
		tr.exchange(j, &r, ex)
	}
	return r
}

// post hands an answer to the loop; false when the loop has stopped.
func (tr *transport) post(out chan<- result, r *result) bool {
	select { // the results channel has room nearly always: no two-way select then
	case out <- *r:
		return true
	default:
	}
	select {
	case out <- *r:
		return true
	case <-tr.quit:
		return false
	}
}

// exchangeBufs is one worker's request and response. A --plain request
// is the same from one attempt of a template to the next, so it is built
// once and sent again as it is: building it again (a pooled request taken
// and given back, its URI parsed, its headers set) was 3-4% of the
// loadgen's CPU in a closed loop against nginx. Lab requests carry headers
// of their own and are built for every attempt.
type exchangeBufs struct {
	req   fasthttp.Request
	resp  fasthttp.Response
	built *template // the plain template req holds; nil: build it
}

// exchange sends the attempt and reads the answer's status and lab headers.
func (tr *transport) exchange(j *job, r *result, ex *exchangeBufs) {
	req, resp := &ex.req, &ex.resp
	if tm := j.tmpl; !j.plain || ex.built != tm {
		req.Reset()
		req.Header.SetMethod(tm.method)
		req.SetRequestURI(tm.uri)
		req.SetHost(tm.host)
		for _, x := range tm.header {
			req.Header.Set(x.Name, x.Value)
		}
		if tm.body != nil {
			req.SetBodyRaw(tm.body)
		}
		ex.built = nil
		if j.plain {
			ex.built = tm
		} else {
			labHeaders(j, &req.Header)
		}
	}
	var err error
	if j.conn != nil {
		err = tr.onConn(j, r, req, resp)
	} else {
		err = j.ep.pool.do(req, resp, j.deadline)
	}
	if err != nil {
		ex.built = nil // built again next time, whatever a failed exchange left in it
		r.err, r.res = err, wire.Classify(err, 0, nil)
		return
	}
	r.status = resp.StatusCode()
	var h labAnswer
	h.read(&resp.Header)
	r.res = wire.Classify(nil, r.status, h.reason)
	r.server = string(h.server)
	r.lblab = r.server != "" || len(h.balancer) > 0
	if r.server == "" && j.plain {
		r.server = j.ep.spec.addr // a service that is not lblab's: the host that answered
	}
	if h.load != nil {
		if rep, err := wire.ParseLoad(h.load); err == nil {
			r.load = rep
		}
	}
	qm, okQ := parseMs(h.queueMs)
	sm, okS := parseMs(h.serviceMs)
	if okQ && okS {
		r.queue, r.service, r.timed = qm, sm, true
	}
}

// labAnswer is the lab headers of an answer, each its first value (nil
// when absent), as Peek gives them.
type labAnswer struct {
	reason, server, balancer, load, queueMs, serviceMs []byte
}

// labPrefix starts every lab header's name.
const labPrefix = "X-Lab-"

// read takes the lab headers in one pass over the answer's headers: seven
// Peeks scanned them seven times, normalizing each name to look for
// (1.5% of the loadgen's CPU against nginx, whose answers have none).
func (a *labAnswer) read(h *fasthttp.ResponseHeader) {
	for k, v := range h.All() {
		if len(k) == len(wire.HLoadMetrics) && strings.EqualFold(string(k), wire.HLoadMetrics) {
			if a.load == nil {
				a.load = v
			}
			continue
		}
		if len(k) <= len(labPrefix) || !strings.EqualFold(string(k[:len(labPrefix)]), labPrefix) {
			continue
		}
		var dst *[]byte
		switch name := string(k); {
		case strings.EqualFold(name, wire.HReason):
			dst = &a.reason
		case strings.EqualFold(name, wire.HServer):
			dst = &a.server
		case strings.EqualFold(name, wire.HBalancer):
			dst = &a.balancer
		case strings.EqualFold(name, wire.HQueueMs):
			dst = &a.queueMs
		case strings.EqualFold(name, wire.HServiceMs):
			dst = &a.serviceMs
		default:
			continue
		}
		if *dst == nil { // the first, as Peek
			*dst = v
		}
	}
}

// parseMs reads a header of milliseconds (X-Lab-Queue-Ms: 12.5).
func parseMs(b []byte) (time.Duration, bool) {
	if len(b) == 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || !(f >= 0) || f > 1e9 {
		return 0, false
	}
	return time.Duration(f * 1e6), true
}

// labHeaders are what the lb and the backends read: the request's number,
// client, key and work, the attempt's kind and number, its deadline and a
// server to avoid.
func labHeaders(j *job, h *fasthttp.RequestHeader) {
	h.Set(wire.HRequest, strconv.FormatUint(j.seq, 10))
	h.Set(wire.HClient, strconv.Itoa(j.client))
	h.Set(wire.HKey, strconv.FormatUint(j.key, 10))
	if j.work >= 0 {
		h.Set(wire.HWork, wire.FormatWork(j.work))
	}
	h.Set(wire.HAttempt, j.kind.String())
	h.Set(wire.HTry, strconv.Itoa(j.try))
	if j.labDL != 0 {
		h.Set(wire.HDeadline, strconv.FormatInt(j.labDL, 10))
	}
	if j.exclude != "" {
		h.Set(wire.HExclude, j.exclude)
	}
	if !j.fault.IsZero() {
		h.Set(wire.HFault, j.fault.String())
	}
	h.Set(wire.HLoadMetricsFormat, "TEXT") // the server's load report on the answer (client-side balancing, each server's longest queue)
}
