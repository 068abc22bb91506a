package backendcmd

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/testbin"
)

// bin is the backend binary, built once for all tests.
var bin string

func TestMain(m *testing.M) {
	code := testbin.Run(m, "github.com/lblab/lblab/cmd/backend", &bin)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// runBackend runs the binary to its end (at most 10 s) and returns its exit
// status and output.
func runBackend(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	timer := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func writeLab(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckConfig(t *testing.T) {
	good := writeLab(t, "servers:\n  - count: 2\n    workers: 4\n  - name: big\n    workers: 8\n")
	bad := writeLab(t, "servers:\n  - count: 2\n    wrokers: 4\n")
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--check-config"}, 0, ""},
		{[]string{"--check-config", "--lab", good, "--name", "big"}, 0, ""},
		{[]string{"--check-config", "--lab", good, "--name", "s2"}, 0, ""},
		{[]string{"--check-config", "--lab", good, "--name", "s9"}, 2, `no server named "s9"`},
		{[]string{"--check-config", "--lab", bad}, 2, "wrokers"},
		{[]string{"--check-config", "--lab", filepath.Join(t.TempDir(), "none.yaml")}, 2, "no such file"},
		{[]string{"--check-config", "--frobnicate"}, 2, "frobnicate"},
		{[]string{"--check-config", "--hop", "-1ms"}, 2, "--hop"},
		{[]string{"--check-config", "extra"}, 2, "extra"},
		{[]string{"--help"}, 0, "--cancel-on-close"},
	}
	for _, tc := range cases {
		code, _, stderr := runBackend(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, strings.TrimPrefix(tc.stderr, "--")) {
			t.Errorf("%v: exit %d, want %d; stderr %q should mention %q", tc.args, code, tc.code, stderr, tc.stderr)
		}
	}
}

// --server emulates a lab server under another name: --name's, else the
// host name's first label (a replica of a compose service or a StatefulSet).
func TestServerFlag(t *testing.T) {
	good := writeLab(t, "servers:\n  - count: 2\n    workers: 4\n  - name: big\n    workers: 8\n")
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no host name here")
	}
	host, _, _ = strings.Cut(host, ".")
	for _, tc := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--check-config", "--lab", good, "--server", "big"}, 0, "server " + host + " (as lab server big) ok"},
		{[]string{"--check-config", "--lab", good, "--server", "s2", "--name", "backend-7"}, 0, "server backend-7 (as lab server s2) ok"},
		{[]string{"--check-config", "--lab", good, "--server", "s9", "--name", "x"}, 2, `no server named "s9"`},
	} {
		code, stdout, stderr := runBackend(t, tc.args...)
		if code != tc.code || !strings.Contains(stdout+stderr, tc.out) {
			t.Errorf("%v: exit %d, output %q; want %d and %q", tc.args, code, stdout+stderr, tc.code, tc.out)
		}
	}
}

func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr := runBackend(t, "--addr", ln.Addr().String())
	if code != 2 || !strings.Contains(stderr, "address already in use") {
		t.Errorf("exit %d, stderr %q; want 2 and the reason", code, stderr)
	}
}

// get sends a GET on a fresh connection and returns the raw response.
func get(addr, path string, hdr string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n%s\r\n", path, addr, hdr)
	out, err := io.ReadAll(c)
	return string(out), err
}

func TestReadyLineAndGracefulSIGTERM(t *testing.T) {
	cmd, rd, stderr := startUnder(t, nil, "--name", "s3", "--hop", "1ms")
	if rd.Name != "s3" || rd.PID != cmd.Process.Pid || rd.Addr == "" || rd.Admin == "" {
		t.Fatalf("ready line %+v; stderr %s", rd, stderr.String())
	}
	if out, err := get(rd.Admin, "/healthz", ""); err != nil || !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Fatalf("admin healthz: %q %v", out, err)
	}
	inFlight := make(chan string, 1)
	go func() {
		out, _ := get(rd.Addr, "/", wire.HWork+": 300ms\r\n")
		inFlight <- out
	}()
	time.Sleep(100 * time.Millisecond) // the request is in service
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if out := <-inFlight; !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Errorf("the request in flight at SIGTERM got %q, want it drained with 200", out)
	}
	if err := cmd.Wait(); err != nil || time.Since(start) > 5*time.Second {
		t.Errorf("exit after SIGTERM: %v after %v; stderr %s", err, time.Since(start), stderr.String())
	}
}

// --lame-duck: after SIGTERM the data port's /healthz answers 503 while
// requests are still served; the process ends after it, and bad values are
// refused.
func TestLameDuck(t *testing.T) {
	if code, _, stderr := runBackend(t, "--check-config", "--lame-duck", "-1s"); code != 2 || !strings.Contains(stderr, "--lame-duck") {
		t.Errorf("--lame-duck -1s: exit %d, %q", code, stderr)
	}
	cmd, rd, stderr := startUnder(t, nil, "--name", "s2", "--lame-duck", "30s")
	if out, err := get(rd.Addr, "/healthz", ""); err != nil || !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Fatalf("healthz before SIGTERM: %q %v", out, err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var health string
	for range 100 { // until the signal is handled: at most 10 s
		if health, _ = get(rd.Addr, "/healthz", ""); strings.HasPrefix(health, "HTTP/1.1 503") {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.HasPrefix(health, "HTTP/1.1 503") || !strings.Contains(health, `"leaving"`) {
		t.Fatalf("healthz after SIGTERM: %q, want 503 leaving", health)
	}
	if out, err := get(rd.Addr, "/x", wire.HWork+": 1ms\r\n"); err != nil || !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Errorf("a request while leaving: %q %v, want it served", out, err)
	}
	// A second signal has its default effect: the process ends at once.
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok && !strings.Contains(ee.Error(), "terminated") {
			t.Errorf("exit: %v; stderr %s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("still running 20 s after the second SIGTERM; stderr %s", stderr.String())
	}
}

// --agent answers HAProxy's agent check on a TCP port of its own, which
// the readiness line names; --agent-scale needs it and a rate it can
// divide by.
func TestAgentFlag(t *testing.T) {
	for _, args := range [][]string{
		{"--check-config", "--agent-scale", "300"},
		{"--check-config", "--agent", "127.0.0.1:0", "--agent-scale", "-1"},
		{"--check-config", "--agent", "127.0.0.1:0", "--agent-scale", "+Inf"},
	} {
		if code, _, stderr := runBackend(t, args...); code != 2 || !strings.Contains(stderr, "--agent-scale") {
			t.Errorf("%v: exit %d, %q; want 2 naming --agent-scale", args, code, stderr)
		}
	}
	_, rd, stderr := startUnder(t, nil, "--name", "s2", "--agent", "127.0.0.1:0")
	if rd.Agent == "" || rd.Agent == rd.Addr || rd.Agent == rd.Admin {
		t.Fatalf("ready line %+v: no agent address of its own; stderr %s", rd, stderr.String())
	}
	conn, err := net.DialTimeout("tcp", rd.Agent, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := io.ReadAll(conn)
	if err != nil || string(line) != "100%\n" {
		t.Errorf("agent answered %q %v, want the initial weight 100%% before any request", line, err)
	}
}
