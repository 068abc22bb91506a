package loadgencmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/valyala/fasthttp"
	"go.uber.org/goleak"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/wire"
)

// fasthttp's idle cleaners sleep a while after their last connection before
// they exit; they hold nothing.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"))
}

// server answers every request 200 on 127.0.0.1 and returns its address.
func server(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{NoDefaultDate: true, Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.Set(wire.HServer, "s1")
	}}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Shutdown(); <-done })
	return ln.Addr().String()
}

func TestBadInputIsExitStatus2(t *testing.T) {
	for _, args := range [][]string{
		{"--nope"},
		{},
		{"--target", "ftp://x:1"},
		{"--target", "http://127.0.0.1:1", "--servers", "s1=127.0.0.1:2"},
		{"--target", "http://127.0.0.1:1", "--lab", "/no/such/lab.yaml"},
		{"--target", "http://127.0.0.1:1", "--rate", "-5"},
		{"--target", "http://127.0.0.1:1", "extra"},
		{"--servers-dns", "backend"},
		{"--servers-dns", "backend:9001", "--servers-dns-admin", "70000"},
		{"--servers-dns-admin", "9100", "--servers", "s1=127.0.0.1:2"},
		{"--servers-dns", "backend:9001", "--dns-interval", "1ms"},
		{"--servers-dns", "backend:9001", "--target", "http://127.0.0.1:1"},
		{"--target", "http://127.0.0.1:1", "--connections", "-1"},
		{"--target", "http://127.0.0.1:1", "--connections", "100001"},
		{"--target", "http://127.0.0.1:1", "--max-inflight", "-1"},
	} {
		err := run(args, &bytes.Buffer{}, &bytes.Buffer{})
		if !errors.As(err, new(usageError)) {
			t.Errorf("%q: err = %v, want a usage error", args, err)
		}
	}
	var help bytes.Buffer
	if err := run([]string{"--help"}, &bytes.Buffer{}, &help); !errors.Is(err, flag.ErrHelp) || !strings.Contains(help.String(), "-check-config") {
		t.Errorf("--help: %v\n%s", err, help.String())
	}
}

func TestCheckConfig(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"--servers", "s1=127.0.0.1:1,s2=127.0.0.1:2", "--check-config", "--seed", "3"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "config ok: lab playground, seed 3") {
		t.Errorf("out: %q", out.String())
	}
	out.Reset()
	if err := run([]string{"--target", "http://127.0.0.1:1/", "--check-config", "--rate", "500"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if want := "config ok: plain load of http://127.0.0.1:1/, 500 requests/s for 20s, at most 256 connections per endpoint\n"; out.String() != want {
		t.Errorf("out: %q, want %q", out.String(), want)
	}
	out.Reset()
	if err := run([]string{"--servers-dns", "backend:9001", "--servers-dns-admin", "9100", "--check-config"}, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "servers from DNS backend:9001 (admin 9100) every 2s") {
		t.Errorf("out: %q", out.String())
	}
}

func TestRunPrintsReadyThenJSONReport(t *testing.T) {
	addr := server(t)
	var out bytes.Buffer
	err := run([]string{"--target", "a=http://" + addr + ",b=" + addr, "--duration", "300ms", "--rate", "100",
		"--json", "--admin", "127.0.0.1:0"}, &out, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	ready, rest, _ := strings.Cut(out.String(), "\n")
	rd, err := wire.ScanReady(strings.NewReader(ready))
	if err != nil || rd.Name != "loadgen" || rd.Admin == "" {
		t.Fatalf("ready line %q: %v", ready, err)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(rest), &rep); err != nil {
		t.Fatalf("%v: %s", err, rest)
	}
	if rep.Mode != "live" || len(rep.Runs) != 2 || rep.Runs[0].Requests == 0 || rep.Runs[0].Requests != rep.Runs[1].Requests {
		t.Errorf("report: %s", rest)
	}
}

// headerServer answers 200 on 127.0.0.1 and counts the requests that carried
// X-Lab-Request, and all of them.
func headerServer(t *testing.T) (addr string, lab, all *atomic.Int64) {
	lab, all = new(atomic.Int64), new(atomic.Int64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{NoDefaultDate: true, Handler: func(ctx *fasthttp.RequestCtx) {
		all.Add(1)
		if len(ctx.Request.Header.Peek(wire.HRequest)) > 0 {
			lab.Add(1)
		}
	}}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Shutdown(); <-done })
	return ln.Addr().String(), lab, all
}

// --target without --lab is a plain load tool's run: no X-Lab-* header and
// no injected hop, a report named after the target; --plain=false asks for
// lblab's headers.
func TestTargetWithoutLabIsPlain(t *testing.T) {
	addr, lab, all := headerServer(t)
	run := runJSON(t, "--target", "http://"+addr+"/", "--duration", "300ms", "--rate", "100")
	if lab.Load() != 0 || all.Load() == 0 || run.Name != addr || run.Load == nil || run.Load.Target != "http://"+addr+"/" {
		t.Errorf("%d of %d requests carried X-Lab headers; run %q, load %+v", lab.Load(), all.Load(), run.Name, run.Load)
	}
	if run.Latency.P50 >= 5 { // the lab's hop is 5 ms each way
		t.Errorf("p50 %.2f ms against a local server: a hop was injected", run.Latency.P50)
	}
	all.Store(0)
	runJSON(t, "--target", "http://"+addr+"/", "--duration", "300ms", "--rate", "100", "--plain=false")
	if lab.Load() == 0 || lab.Load() != all.Load() {
		t.Errorf("--plain=false: %d of %d requests carried X-Lab headers", lab.Load(), all.Load())
	}
}

// A closed port: the report names the refused connections, and the run
// exits 1 because nothing answered (a wrong port must not look like a
// measurement).
func TestClosedPortIsRefusedAndFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	var out, errOut bytes.Buffer
	code := Main([]string{"--target", "http://" + addr + "/", "--duration", "300ms", "--rate", "100"}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "connection refused:") ||
		!strings.Contains(errOut.String(), "no request succeeded: http://"+addr+"/: 0 of ") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}
