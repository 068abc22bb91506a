package backendcmd

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
)

// startUnder starts the backend binary under prefix (prlimit ..., or nil)
// with args, and returns it, its readiness line and what it writes on
// stderr; it is killed at cleanup.
func startUnder(t *testing.T, prefix []string, args ...string) (*exec.Cmd, wire.Ready, *bytes.Buffer) {
	t.Helper()
	argv := append(append(append([]string(nil), prefix...), bin), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	rd, err := wire.ScanReady(bufio.NewReader(stdout))
	if err != nil {
		t.Fatalf("ready line: %v; stderr %s", err, stderr.String())
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return cmd, rd, &stderr
}

// prlimit is the prlimit command (util-linux): skipped without it, except
// under CI, where it must be there.
func prlimit(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("prlimit")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("prlimit is not installed (apt-get install -y util-linux)")
		}
		t.Skipf("prlimit is not installed (apt-get install -y util-linux): skipping")
	}
	return path
}

// answered sends GET / on a fresh connection and reports whether a
// response came back before deadline.
func answered(addr string, deadline time.Time) bool {
	c, err := net.DialTimeout("tcp", addr, time.Until(deadline))
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(deadline)
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n"+wire.HWork+": 0s\r\nConnection: close\r\n\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "HTTP/1.1 ")
}

// flood opens n idle connections to addr (they hold descriptors in the
// server without sending a byte).
func flood(t *testing.T, addr string, n int) []net.Conn {
	t.Helper()
	var conns []net.Conn
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break // the kernel's accept queue is full too
		}
		conns = append(conns, c)
	}
	return conns
}

// TestRecoversFromRunningOutOfDescriptors: under prlimit --nofile=256, a
// flood of idle connections first exhausts the process's descriptors
// (accept fails with EMFILE); once they close, new connections are
// accepted and answered again within a second or so (the accept retry
// backs off to at most 1 s). Before, the accept loop ended for good. The
// cap is lifted here (--max-conns) so the flood reaches the limit; with the
// default cap the flood is turned away with 503 before it does, and the
// admin API keeps answering meanwhile.
func TestRecoversFromRunningOutOfDescriptors(t *testing.T) {
	pl := prlimit(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"past the limit", []string{"--max-conns", "100000"}},
		{"default cap", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rd, _ := startUnder(t, []string{pl, "--nofile=256", "--"}, tc.args...)
			conns := flood(t, rd.Addr, 600)
			time.Sleep(300 * time.Millisecond) // the server accepts what it can
			if tc.args == nil {
				c, err := net.DialTimeout("tcp", rd.Admin, time.Second)
				if err != nil {
					t.Fatalf("admin during the flood: %v", err)
				}
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: "+rd.Admin+"\r\nConnection: close\r\n\r\n")
				line, err := bufio.NewReader(c).ReadString('\n')
				c.Close()
				if err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
					t.Fatalf("admin during the flood: %q %v", line, err)
				}
			} else if answered(rd.Addr, time.Now().Add(300*time.Millisecond)) {
				t.Fatalf("the flood of %d connections did not exhaust 256 descriptors", len(conns))
			}
			for _, c := range conns {
				c.Close()
			}
			// 1 s: the longest back-off; 1 s more for a loaded machine.
			deadline := time.Now().Add(2 * time.Second)
			for !answered(rd.Addr, deadline) {
				if time.Now().After(deadline) {
					t.Fatal("no new connection was answered after the flood closed")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestSoftLimitRaisedToHard: a process started with a soft open-files limit
// below its hard one runs with the hard one (Go's runtime raises it at
// start, to the hard limit less one), so the caps derive from what the
// system allows.
func TestSoftLimitRaisedToHard(t *testing.T) {
	pl := prlimit(t)
	cmd, _, _ := startUnder(t, []string{pl, "--nofile=256:1024", "--"})
	data, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/limits")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(strings.TrimPrefix(line, "Max open files")); strings.HasPrefix(line, "Max open files") && len(f) >= 2 {
			if soft, _ := strconv.Atoi(f[0]); soft < 1023 {
				t.Fatalf("soft open-files limit %d, want raised to about the hard 1024: %q", soft, line)
			}
			return
		}
	}
	t.Fatalf("no open-files line in %s", data)
}

// TestSIGTERMStopsWithinTheDrainTime: whatever the backend holds at
// SIGTERM - an answer it must hold back for a minute (a fast error with
// error_time 1m), a job at a near-zero speed - it exits within its drain
// time (5 s) and a little. Before, an answer held back kept the process
// alive until it left.
func TestSIGTERMStopsWithinTheDrainTime(t *testing.T) {
	for name, lab := range map[string]string{
		"an answer held back": "servers:\n  - {count: 1, errors: 1, error_time: 1m}\n",
		"a crawling server":   "servers:\n  - {count: 1, speed: 0.000001}\n",
	} {
		t.Run(name, func(t *testing.T) {
			cmd, rd, _ := startUnder(t, nil, "--lab", writeLab(t, lab))
			for i := 0; i < 3; i++ { // three requests in flight
				c, err := net.Dial("tcp", rd.Addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n"+wire.HWork+": 1h\r\n\r\n")
			}
			time.Sleep(200 * time.Millisecond) // in flight
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case err := <-exited:
				if err != nil {
					t.Fatalf("exit: %v", err)
				}
			case <-time.After(drainTime + 5*time.Second):
				t.Fatalf("still running %v after SIGTERM (drain time %v)", drainTime+5*time.Second, drainTime)
			}
		})
	}
}

// An admin listener on a non-loopback address needs a token: without one
// the backend refuses to start (exit 2); LBLAB_TOKEN gives it one.
func TestNonLoopbackAdminNeedsAToken(t *testing.T) {
	t.Setenv(wire.TokenEnv, "")
	code, _, stderr := runBackend(t, "--admin", "0.0.0.0:0", "--check-config")
	if code != 2 || !strings.Contains(stderr, "non-loopback address needs a token") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runBackend(t, "--allow-host", "*", "--check-config"); code != 2 || !strings.Contains(stderr, "needs a token") {
		t.Fatalf("--allow-host *: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := runBackend(t, "--token", "short", "--check-config"); code != 2 || !strings.Contains(stderr, "16 to 256") {
		t.Fatalf("a short token: exit %d, stderr %q", code, stderr)
	}
	t.Setenv(wire.TokenEnv, "0123456789abcdef0123")
	if code, _, stderr := runBackend(t, "--admin", "0.0.0.0:0", "--check-config"); code != 0 {
		t.Fatalf("with LBLAB_TOKEN: exit %d, stderr %q", code, stderr)
	}
}
