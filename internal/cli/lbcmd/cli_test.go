package lbcmd

import (
	"bufio"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/goleak"

	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/testbin"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, // fasthttp's self-ending cleaners and process-long refreshers
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*workerPool).Start.func2"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*TCPDialer).tcpAddrsClean"))
}

// build compiles the lb binary once per test.
func build(t *testing.T) string {
	t.Helper()
	bin, err := testbin.Build(t.TempDir(), "github.com/lblab/lblab/cmd/lb")
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestCheckConfigExitCodes(t *testing.T) {
	bin := build(t)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("balancers:\n  algorithm: fastest\n"), 0o644)
	shared := filepath.Join(t.TempDir(), "shared.yaml")
	os.WriteFile(shared, []byte("balancers:\n  load: shared\n"), 0o644)
	cases := []struct {
		args   []string
		status int
		stderr string
	}{
		{[]string{"--backends", "s1=127.0.0.1:9001,s2=127.0.0.1:9002", "--check-config"}, 0, ""},
		{[]string{"--backends", "s1=127.0.0.1:9001", "--lab", bad, "--check-config"}, 2, "balancers.algorithm"},
		{[]string{"--backends", "s1=127.0.0.1:9001", "--algorithm", "fastest", "--check-config"}, 2, "--algorithm"},
		{[]string{"--backends", "s1=127.0.0.1:9001,s1=127.0.0.1:9002", "--check-config"}, 2, "duplicate backend name"},
		{[]string{"--backends", "s1=nowhere", "--check-config"}, 2, "addr"},
		{[]string{"--check-config"}, 2, "--backends is required"},
		{[]string{"--backends-dns", "backend:9001", "--backends-dns-admin", "9100", "--check-config"}, 0, ""},
		{[]string{"--backends", "s1=127.0.0.1:9001", "--backends-dns", "backend:9001", "--dns-interval", "500ms", "--check-config"}, 0, ""},
		{[]string{"--backends-dns", "backend", "--check-config"}, 2, "--backends-dns"},
		{[]string{"--backends-dns-admin", "9100", "--backends", "s1=127.0.0.1:9001", "--check-config"}, 2, "needs --backends-dns"},
		{[]string{"--backends-dns", "backend:9001", "--dns-interval", "1ms", "--check-config"}, 2, "--dns-interval"},
		{[]string{"--backends-dns", "backend:9001", "--lab", shared, "--check-config"}, 2, "admin port is needed"},
		{[]string{"--bogus"}, 2, "lb: unknown flag --bogus (lb --help lists the flags)\n"},
		{[]string{"--backend", "s1=127.0.0.1:9001"}, 2, "lb: unknown flag --backend; did you mean --backends? (lb --help lists the flags)\n"},
		{[]string{"--version"}, 0, ""},
		{[]string{"--help"}, 0, "--backends"},
	}
	for _, tc := range cases {
		cmd := exec.Command(bin, tc.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		status := 0
		if ee, ok := err.(*exec.ExitError); ok {
			status = ee.ExitCode()
		}
		if status != tc.status || !strings.Contains(stderr.String(), strings.TrimPrefix(tc.stderr, "--")) {
			t.Errorf("lb %v: status %d, stderr %q; want %d mentioning %q", tc.args, status, stderr.String(), tc.status, tc.stderr)
		}
	}
}

func TestReadyLineProxyAndSIGTERM(t *testing.T) {
	bin := build(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	backend := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("hello") }}
	go backend.Serve(ln)
	defer backend.Shutdown()
	cmd, rd := startBinary(t, bin, "--backends", "s1="+ln.Addr().String(), "--hop", "0s", "--name", "edge")
	if rd.Name != "edge" || rd.PID != cmd.Process.Pid || rd.Admin == "" {
		t.Fatalf("ready %+v", rd)
	}
	hc := &fasthttp.HostClient{Addr: rd.Addr}
	defer hc.CloseIdleConnections()
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	req.SetRequestURI("http://" + rd.Addr + "/anything")
	err = hc.DoTimeout(req, resp, 5*time.Second)
	if err != nil || resp.StatusCode() != 200 || string(resp.Body()) != "hello" ||
		string(resp.Header.Peek(wire.HServer)) != "s1" || string(resp.Header.Peek(wire.HBalancer)) != "edge" {
		t.Fatalf("GET through lb: %v\n%s", err, resp)
	}
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	if err := cmd.Wait(); err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("after SIGTERM: %v in %v, want exit 0 within 5s", err, time.Since(start))
	}
}

// startBinary runs the lb and waits for its readiness line; the process is
// killed at cleanup if still running.
func startBinary(t *testing.T, bin string, args ...string) (*exec.Cmd, wire.Ready) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stdout, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait() // already waited for in most tests
		pw.Close()
	})
	ready := make(chan wire.Ready, 1)
	go func() {
		rd, err := wire.ScanReady(bufio.NewReader(stdout))
		if err != nil {
			t.Error(err)
		}
		ready <- rd
		io.Copy(io.Discard, stdout)
	}()
	select {
	case rd := <-ready:
		return cmd, rd
	case <-time.After(10 * time.Second):
		t.Fatal("no readiness line")
	}
	return nil, wire.Ready{}
}
