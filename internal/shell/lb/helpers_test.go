package lb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/goleak"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/testbin"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// fasthttp's own background goroutines: the idle-connection and
		// idle-worker cleaners exit by themselves up to 10 s after their pool
		// or server stops; the Date-header refresher and the default dialer's
		// address-cache cleaner live for the process.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*TCPDialer).tcpAddrsClean"))
}

// fake is a tiny backend: it answers with X-Lab-Server after a delay with a
// chosen status, serves /healthz and /load, and counts what it saw.
type fake struct {
	name      string
	ln        net.Listener
	srv       *fasthttp.Server
	delay     atomic.Int64 // ns
	status    atomic.Int32
	down      atomic.Bool // /healthz answers 503
	queued    atomic.Int32
	hits      atomic.Int64 // data requests received
	completed atomic.Int64 // data requests answered
	probes    atomic.Int64 // requests tagged X-Lab-Attempt: probe
	checks    atomic.Int64 // health checks (GET /healthz) received
	closed    atomic.Bool
	// GET /probe (a probing algorithm's): what it answers, after how
	// long, and how many it got; a body set replaces the answer
	probeRIF, probeLatencyUs, probeDelay atomic.Int64
	probeBody                            atomic.Value // string
	probed                               atomic.Int64
	cancelAt                             atomic.Int64 // when the last POST /admin/cancel came (UnixNano)
	// token, when set before the lb starts, guards /load and
	// /admin/cancel as a backend's admin API does.
	token string
}

func newFake(name string, ln net.Listener, log fasthttp.Logger) *fake {
	f := &fake{name: name, ln: ln}
	f.status.Store(200)
	f.srv = &fasthttp.Server{Handler: f.handle, NoDefaultServerHeader: true, Logger: log}
	wire.Serve(f.srv, ln, wire.Limits{}, nil) // so a Shutdown right after cannot miss the listener
	return f
}

// startFake serves a fake on a 127.0.0.1 port, shut down at cleanup.
func startFake(t testing.TB, name string) *fake {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(name, ln, nil)
	t.Cleanup(f.close)
	return f
}

func (f *fake) close() {
	if !f.closed.Swap(true) {
		f.srv.Shutdown()
	}
}

func (f *fake) addr() string { return f.ln.Addr().String() }

func (f *fake) handle(ctx *fasthttp.RequestCtx) {
	switch string(ctx.Path()) {
	case "/healthz":
		f.checks.Add(1)
		if f.down.Load() {
			ctx.SetStatusCode(503)
		}
		return
	case wire.ProbePath:
		f.probed.Add(1)
		time.Sleep(time.Duration(f.probeDelay.Load()))
		if b, _ := f.probeBody.Load().(string); b != "" {
			ctx.SetBodyString(b)
			return
		}
		fmt.Fprintf(ctx, `{"rif":%d,"latency_ms":%g}`, f.probeRIF.Load(), float64(f.probeLatencyUs.Load())/1000)
		return
	case "/load", "/admin/cancel":
		if f.token != "" && string(ctx.Request.Header.Peek("Authorization")) != "Bearer "+f.token {
			ctx.SetStatusCode(401)
			return
		}
		if string(ctx.Path()) == "/admin/cancel" {
			f.cancelAt.Store(time.Now().UnixNano())
			ctx.SetBodyString(`{"cancelled":0}`)
			return
		}
		fmt.Fprintf(ctx, `{"queued":%d,"in_service":0}`, f.queued.Load())
		return
	}
	f.hits.Add(1)
	if string(ctx.Request.Header.Peek(wire.HAttempt)) == "probe" {
		f.probes.Add(1)
	}
	time.Sleep(time.Duration(f.delay.Load()))
	ctx.Response.Header.Set(wire.HServer, f.name)
	ctx.SetStatusCode(int(f.status.Load()))
	ctx.SetBodyString(`{"server":"` + f.name + `"}`)
	f.completed.Add(1)
}

// testLab is the default lab with no hop delay and the given settings.
func testLab(t testing.TB, kv ...string) *labfile.Lab {
	lab := labfile.Default()
	kv = append([]string{"network.hop", "0s"}, kv...)
	for i := 0; i+1 < len(kv); i += 2 {
		if err := lab.Apply(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	return lab
}

func specs(fakes ...*fake) []BackendSpec {
	var out []BackendSpec
	for _, f := range fakes {
		out = append(out, BackendSpec{Name: f.name, Addr: f.addr(), Admin: f.addr()})
	}
	return out
}

// startLB runs an lb over the fakes on 127.0.0.1, shut down at cleanup.
func startLB(t testing.TB, lab *labfile.Lab, fakes ...*fake) (*LB, *client) {
	return startLBWith(t, Config{Name: "lbt", Lab: lab, Backends: specs(fakes...), IdleConn: time.Second})
}

// startLBWith runs an lb of cfg on 127.0.0.1, shut down at cleanup.
func startLBWith(t testing.TB, cfg Config) (*LB, *client) {
	t.Helper()
	l, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var c *client
	t.Cleanup(func() { // runs after the lb's shutdown, registered below
		if c != nil {
			c.data.CloseIdleConnections()
			c.admin.CloseIdleConnections()
		}
	})
	testbin.Start(t, cfg.Name, l)
	c = &client{data: &fasthttp.HostClient{Addr: l.Addr()}, admin: &fasthttp.HostClient{Addr: l.AdminAddr()}}
	return l, c
}

// client talks to an lb's two listeners.
type client struct{ data, admin *fasthttp.HostClient }

// answer is one response, reduced to what tests check.
type answer struct {
	status   int
	server   string
	balancer string
	body     string
	took     time.Duration
}

// get sends GET path through the proxy with headers as name, value pairs.
func (c *client) get(t testing.TB, path string, headers ...string) answer {
	return do(t, c.data, "GET", path, "", headers...)
}

// call sends a request to the admin API.
func (c *client) call(t testing.TB, method, path, body string) answer {
	return do(t, c.admin, method, path, body)
}

func do(t testing.TB, hc *fasthttp.HostClient, method, path, body string, headers ...string) answer {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(method)
	req.SetRequestURI("http://" + hc.Addr + path)
	req.SetBodyString(body)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	start := time.Now()
	if err := hc.DoTimeout(req, resp, 10*time.Second); err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	return answer{status: resp.StatusCode(), server: string(resp.Header.Peek(wire.HServer)),
		balancer: string(resp.Header.Peek(wire.HBalancer)), body: string(resp.Body()), took: time.Since(start)}
}

// state fetches GET /admin/state.
func (c *client) state(t testing.TB) shownState {
	a := c.call(t, "GET", "/admin/state", "")
	var s shownState
	if err := json.Unmarshal([]byte(a.body), &s); err != nil {
		t.Fatalf("state %d %q: %v", a.status, a.body, err)
	}
	return s
}

// shownState is a GET /admin/state read back, with its backends by name.
type shownState struct{ State }

func (s shownState) backend(name string) BackendState {
	for _, b := range s.Backends {
		if b.Name == name && b.Present {
			return b
		}
	}
	return BackendState{}
}

// eventually polls cond every 10 ms until it holds or 5 s pass.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// awaitEvents reads GET /admin/events until every wanted text has appeared.
func awaitEvents(t testing.TB, adminAddr string, want ...string) string {
	t.Helper()
	conn, err := net.Dial("tcp", adminAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(conn, "GET /admin/events HTTP/1.1\r\nHost: %s\r\n\r\n", adminAddr)
	var seen strings.Builder
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		seen.WriteString(line)
		if missing(seen.String(), want) == "" {
			return seen.String()
		}
		if err != nil {
			t.Fatalf("events: %v; still missing %q in:\n%s", err, missing(seen.String(), want), seen.String())
		}
	}
}

func missing(text string, want []string) string {
	for _, w := range want {
		if !strings.Contains(text, w) {
			return w
		}
	}
	return ""
}
