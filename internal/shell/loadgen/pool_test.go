package loadgen

import (
	"bytes"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/report"
)

// countingListener counts the connections a server accepted and the most
// that were open at once.
type countingListener struct {
	net.Listener
	accepted, open, peak atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted.Add(1)
	n := l.open.Add(1)
	for p := l.peak.Load(); n > p && !l.peak.CompareAndSwap(p, n); p = l.peak.Load() {
	}
	return &countedConn{Conn: c, l: l}, nil
}

type countedConn struct {
	net.Conn
	l    *countingListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// foreignServer is a service that is not lblab's on 127.0.0.1:0: no X-Lab-*
// header in its answers; handle sets each answer (n counts requests from 0).
func foreignServer(t *testing.T, handle func(ctx *fasthttp.RequestCtx, n int)) (string, *countingListener) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &countingListener{Listener: ln}
	var n atomic.Int64
	srv := &fasthttp.Server{NoDefaultDate: true, NoDefaultServerHeader: true, Logger: quiet{}, CloseOnShutdown: true,
		MaxIdleWorkerDuration: 50 * time.Millisecond,
		Handler:               func(ctx *fasthttp.RequestCtx) { handle(ctx, int(n.Add(1)-1)) }}
	done := make(chan struct{})
	go func() { _ = srv.Serve(cl); close(done) }()
	t.Cleanup(func() { _ = srv.Shutdown(); <-done })
	return ln.Addr().String(), cl
}

// closedPort is a 127.0.0.1 port nobody listens on (one just closed).
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func plainTarget(addr string) []Target { return []Target{{URLs: []string{"http://" + addr + "/"}}} }

// At a rate its connections cannot carry (a service answering in 50 ms,
// 4 connections: at most 80 requests/s of the 400 asked), the loadgen
// never opens more than its bound, the requests wait for a free connection
// with their latency counted from their intended start, and the report says
// the generator fell behind because every connection was busy, naming the
// knob. Before the bounded pool, each waiting request opened a connection
// of its own (up to 4,096).
func TestConnectionPoolBoundsASlowTarget(t *testing.T) {
	addr, cl := foreignServer(t, func(ctx *fasthttp.RequestCtx, _ int) { time.Sleep(50 * time.Millisecond) })
	lab := testLab(t, map[string]string{"clients.rate": "400", "duration": "600ms"})
	var warn bytes.Buffer
	rep, r := runLive(t, Config{Lab: lab, Targets: plainTarget(addr), HTTP: HTTP{Plain: true}, Connections: 4,
		Drain: 500 * time.Millisecond, Warn: &warn})
	run := rep.Runs[0]
	checkAccounted(t, run)
	ld := run.Load
	t.Logf("accepted %d, peak open %d, attempts out at most %d; %+v\n%s", cl.accepted.Load(), cl.peak.Load(), r.l.peak, ld, warn.String())
	if cl.accepted.Load() > 4 || cl.peak.Load() > 4 || r.l.peak > 4 {
		t.Errorf("the server accepted %d connections (%d open at once, %d attempts out); the bound is 4",
			cl.accepted.Load(), cl.peak.Load(), r.l.peak)
	}
	if cl.accepted.Load() == 0 || ld.StatusCodes[200] == 0 {
		t.Fatalf("nothing reached the server: %+v", ld)
	}
	g := ld.Generator
	// The cause is the connections, unless the machine kept the test from
	// running (its threads waited for a CPU for a tenth of the run or more):
	// the report then blames the machine first.
	busy := g.WaitedForCPUS >= busyMachine*ld.SendingS
	if !g.Behind || g.WaitedForConnection == 0 || !busy && (g.Cause != "connections" || !strings.Contains(g.Advice, "--connections")) {
		t.Errorf("the report does not say the generator fell behind for want of connections: %+v", g)
	}
	if ld.Rate != 400 || ld.AchievedRate >= 0.5*ld.Rate || g.NeverStarted == 0 || ld.Due != ld.Sent+g.NeverStarted {
		t.Errorf("rate %g, achieved %g, due %d = sent %d + never started %d?", ld.Rate, ld.AchievedRate, ld.Due, ld.Sent, g.NeverStarted)
	}
	// The wait for a connection is in the latency (from the intended start),
	// not in the service's time (from the send).
	if ld.Service.P50 < 45 || ld.Service.P50 > 1000 || ld.Latency.P50 < 2*ld.Service.P50 {
		t.Errorf("latency p50 %.1f ms against service p50 %.1f ms: the wait for a connection is not told apart", ld.Latency.P50, ld.Service.P50)
	}
	for _, want := range []string{"BEHIND: the loadgen started", "waited for a free connection", "requests/s at a rate of 400"} {
		if !strings.Contains(warn.String(), want) {
			t.Errorf("the warning does not say %q:\n%s", want, warn.String())
		}
	}
}

// Every HTTP answer counts under its status code: a service answering 404
// to every third request gets exactly a third of them there, and a 404 is
// still an answer (served, as below 500 always is).
func TestReportCountsStatusCodes(t *testing.T) {
	addr, _ := foreignServer(t, func(ctx *fasthttp.RequestCtx, n int) {
		if n%3 == 2 {
			ctx.SetStatusCode(fasthttp.StatusNotFound)
		}
	})
	lab := testLab(t, map[string]string{"clients.rate": "300", "duration": "500ms"})
	rep, _ := runLive(t, Config{Lab: lab, Targets: plainTarget(addr), HTTP: HTTP{Plain: true}})
	run := rep.Runs[0]
	checkAccounted(t, run)
	codes := run.Load.StatusCodes
	n := codes[200] + codes[404]
	if n != run.Attempts || len(codes) != 2 || codes[404] != n/3 || run.Succeeded != run.Requests {
		t.Errorf("status codes %v for %d attempts (%d succeeded of %d)", codes, run.Attempts, run.Succeeded, run.Requests)
	}
	if len(run.Load.ErrorKinds) != 0 {
		t.Errorf("error kinds without a failed exchange: %v", run.Load.ErrorKinds)
	}
	var out bytes.Buffer
	if err := rep.WriteLoad(&out); err != nil || !strings.Contains(out.String(), "200:") || !strings.Contains(out.String(), "404:") {
		t.Errorf("the text report does not list the codes (%v):\n%s", err, out.String())
	}
}

// Against a closed port every attempt fails as "connection refused", and
// the report says so, by kind.
func TestReportNamesRefusedConnections(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.rate": "100", "duration": "300ms"})
	rep, _ := runLive(t, Config{Lab: lab, Targets: plainTarget(closedPort(t)), HTTP: HTTP{Plain: true}})
	run := rep.Runs[0]
	checkAccounted(t, run)
	ld := run.Load
	if ld.ErrorKinds[report.ErrRefused] != run.Attempts || run.Attempts == 0 || len(ld.ErrorKinds) != 1 || len(ld.StatusCodes) != 0 {
		t.Errorf("error kinds %v, status codes %v for %d attempts", ld.ErrorKinds, ld.StatusCodes, run.Attempts)
	}
	var out bytes.Buffer
	if err := rep.WriteLoad(&out); err != nil || !strings.Contains(out.String(), "connection refused:") {
		t.Errorf("the text report does not name refused connections (%v):\n%s", err, out.String())
	}
}

// The achieved rate is the requests sent over the time it took to send
// them: the run's duration when the generator kept up, longer when it
// started requests after the end.
func TestReportAchievedRate(t *testing.T) {
	addr, _ := foreignServer(t, func(*fasthttp.RequestCtx, int) {})
	lab := testLab(t, map[string]string{"clients.rate": "300", "duration": "1s"})
	rep, _ := runLive(t, Config{Lab: lab, Targets: plainTarget(addr), HTTP: HTTP{Plain: true}})
	run := rep.Runs[0]
	ld := run.Load
	t.Logf("%+v", ld)
	if ld.Rate != 300 || ld.Sent != run.Requests || ld.Due != ld.Sent || ld.SendingS < rep.DurationS {
		t.Errorf("rate %g, sent %d of %d due (requests %d), sending %gs of a %gs run", ld.Rate, ld.Sent, ld.Due, run.Requests, ld.SendingS, rep.DurationS)
	}
	if want := float64(ld.Sent) / ld.SendingS; ld.AchievedRate < want-0.01 || ld.AchievedRate > want+0.01 {
		t.Errorf("achieved %g requests/s, want %d / %gs = %g", ld.AchievedRate, ld.Sent, ld.SendingS, want)
	}
	// 300/s for 1 s is a Poisson count: 300 +- 3 standard deviations, when
	// the generator kept up (a stalled machine makes it send later).
	if !ld.Generator.Behind && (ld.AchievedRate < 240 || ld.AchievedRate > 360) {
		t.Errorf("achieved %g requests/s at 300/s", ld.AchievedRate)
	}
	if ld.Generator.Behind != report.IsBehind(run.Pacing.Late, run.Pacing.Started, ld.Generator.NeverStarted) {
		t.Errorf("behind %v with %d of %d started late", ld.Generator.Behind, run.Pacing.Late, run.Pacing.Started)
	}
}

// A run that expects lblab's headers (not --plain) against a service that
// sends none warns at its first answer, once; against lblab's it does not.
func TestWarnsWhenTheTargetIsNotLblabs(t *testing.T) {
	addr, _ := foreignServer(t, func(*fasthttp.RequestCtx, int) {})
	lab := testLab(t, map[string]string{"clients.rate": "100", "duration": "300ms"})
	var warn bytes.Buffer
	rep, _ := runLive(t, Config{Lab: lab, Targets: plainTarget(addr), Warn: &warn})
	if n := strings.Count(warn.String(), "WARNING: the first answer"); n != 1 || !strings.Contains(warn.String(), "--plain") {
		t.Errorf("%d warnings:\n%s", n, warn.String())
	}
	if !logSays(rep.Runs[0], "not lblab's") {
		t.Errorf("the run's log does not say it: %+v", rep.Runs[0].Log)
	}
	f := newFake(t, "s1", false, okAfterWork)
	warn.Reset()
	runLive(t, Config{Lab: lab, Targets: []Target{toFakes("lab", f)}, Dial: dialer(f), Warn: &warn})
	if strings.Contains(warn.String(), "not lblab's") {
		t.Errorf("warned against lblab's own server:\n%s", warn.String())
	}
}
