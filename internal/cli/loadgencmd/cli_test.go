package loadgencmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"net"
	"strings"
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
