package loadgen

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
	"go.uber.org/goleak"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/wire"
)

// The HostClient's idle-connection cleaner sleeps up to 10 s after its last
// connection closed before it exits; it holds nothing.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"))
}

// got is one attempt as a fake server received it.
type got struct {
	Seq      uint64
	Client   int
	Key      uint64
	Work     time.Duration
	HasWork  bool
	Kind     string
	Deadline int64
	Exclude  string
	Fault    string // X-Lab-Fault
	At       time.Time
}

// answer is what a fake does with a request: wait, then answer status.
type answer struct {
	status int
	delay  time.Duration
	loadQ  int  // the queue the load report says (endpoint-load-metrics, none in service); -1 = no header
	close  bool // Connection: close
}

// fake is a tiny lab server: it records every attempt and answers as told.
type fake struct {
	name   string
	ln     net.Listener
	mem    *fasthttputil.InmemoryListener // nil over TCP
	srv    *fasthttp.Server
	mu     sync.Mutex
	reqs   []got
	handle func(g got, n int) answer // n counts requests from 0
	served chan error
	once   sync.Once
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// okAfterWork answers 200 after the request's work (capped at 20 ms).
func okAfterWork(g got, _ int) answer {
	return answer{status: 200, delay: min(g.Work, 20*time.Millisecond), loadQ: -1}
}

// newFake starts a fake on an in-memory listener, or on 127.0.0.1 when tcp.
func newFake(t testing.TB, name string, tcp bool, handle func(got, int) answer) *fake {
	f := &fake{name: name, handle: handle, served: make(chan error, 1)}
	if tcp {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		f.ln = ln
	} else {
		f.mem = fasthttputil.NewInmemoryListener()
		f.ln = f.mem
	}
	f.srv = &fasthttp.Server{Handler: f.serve, NoDefaultDate: true, NoDefaultServerHeader: true,
		MaxIdleWorkerDuration: 50 * time.Millisecond, CloseOnShutdown: true, Logger: quiet{}}
	go func() { f.served <- f.srv.Serve(f.ln) }()
	t.Cleanup(f.close)
	return f
}

func (f *fake) serve(ctx *fasthttp.RequestCtx) {
	h := &ctx.Request.Header
	g := got{Kind: string(h.Peek(wire.HAttempt)), Exclude: string(h.Peek(wire.HExclude)), Fault: string(h.Peek(wire.HFault)), At: time.Now()}
	g.Seq, _ = wire.ParseUint(h.Peek(wire.HRequest))
	c, _ := wire.ParseUint(h.Peek(wire.HClient))
	g.Client = int(c)
	g.Key, _ = wire.ParseUint(h.Peek(wire.HKey))
	g.Work, g.HasWork = wire.ParseWork(h.Peek(wire.HWork))
	dl, _ := wire.ParseUint(h.Peek(wire.HDeadline))
	g.Deadline = int64(dl)
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, g)
	f.mu.Unlock()
	a := f.handle(g, n)
	time.Sleep(a.delay)
	ctx.Response.Header.Set(wire.HServer, f.name)
	if a.loadQ >= 0 {
		ctx.Response.Header.Set(wire.HLoadMetrics, "TEXT named_metrics.queued:"+strconv.Itoa(a.loadQ)+", named_metrics.in_service:0")
	}
	ctx.SetStatusCode(a.status)
	if a.close {
		ctx.SetConnectionClose()
	}
}

func (f *fake) close() {
	f.once.Do(func() {
		f.srv.Shutdown()
		f.ln.Close()
		<-f.served
	})
}

func (f *fake) got() []got {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]got(nil), f.reqs...)
}

// addr is the fake's host:port (in-memory fakes are named by their name).
func (f *fake) addr() string {
	if f.mem != nil {
		return f.name + ":80"
	}
	return f.ln.Addr().String()
}

// dialer routes host:port to in-memory fakes (and TCP otherwise).
func dialer(fakes ...*fake) func(string) (net.Conn, error) {
	return func(addr string) (net.Conn, error) {
		for _, f := range fakes {
			if f.mem != nil && f.addr() == addr {
				return f.mem.Dial()
			}
		}
		return net.DialTimeout("tcp", addr, time.Second)
	}
}

// testLab is the playground with a short run and the given changes.
func testLab(t testing.TB, set map[string]string) *labfile.Lab {
	lab := labfile.Default()
	lab.Duration = time.Second
	for _, k := range []string{"duration", "clients.mode"} { // ordered: mode before its knobs
		if v, ok := set[k]; ok {
			mustApply(t, lab, k, v)
		}
	}
	for k, v := range set {
		mustApply(t, lab, k, v)
	}
	return lab
}

func mustApply(t testing.TB, lab *labfile.Lab, k, v string) {
	t.Helper()
	if err := lab.Apply(k, v); err != nil {
		t.Fatalf("%s=%s: %v", k, v, err)
	}
}

// toFakes builds a balancer target for fakes.
func toFakes(name string, fakes ...*fake) Target {
	t := Target{Name: name}
	for _, f := range fakes {
		t.URLs = append(t.URLs, "http://"+f.addr()+"/")
	}
	return t
}

// runLive runs cfg to the end and returns the report.
func runLive(t testing.TB, cfg Config) (*report.Report, *Runner) {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep, r
}

// checkAccounted fails unless every request ended exactly once.
func checkAccounted(t testing.TB, run report.Run) {
	t.Helper()
	o := run.Outcomes
	if sum := o.Succeeded + o.Failed + o.Rejected + o.TimedOut; sum != run.Requests || run.Requests == 0 {
		t.Errorf("%s: %d requests, outcomes add up to %d (%+v)", run.Name, run.Requests, sum, o)
	}
	if run.Succeeded+run.Failed != run.Requests {
		t.Errorf("%s: succeeded %d + failed %d != requests %d", run.Name, run.Succeeded, run.Failed, run.Requests)
	}
}

func describe(run report.Run) string {
	return fmt.Sprintf("%s: req %d ok %d att %d retries %d hedges %d timeouts %d errors %d rejected %d wasted %d p50 %.1f p99 %.1f",
		run.Name, run.Requests, run.Succeeded, run.Attempts, run.Retries, run.Hedges, run.Timeouts, run.Errors,
		run.Rejected, run.Wasted, run.Latency.P50, run.Latency.P99)
}
