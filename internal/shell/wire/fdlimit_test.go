//go:build linux

package wire

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// The admin cap is a sixteenth of the open-files limit within [16, 256],
// and the data cap leaves it out: an admin flood and a full data listener
// together stay within the limit (less the reserve) wherever the limit
// allows the data listener more than its floor of 64.
func TestAdminConnsFromTheFDLimit(t *testing.T) {
	for limit, want := range map[uint64]int{64: 16, 256: 16, 512: 32, 1024: 64, 4096: 256, 1 << 20: 256} {
		if got := AdminConns(limit); got != want {
			t.Errorf("AdminConns(%d) = %d, want %d", limit, got, want)
		}
	}
	for _, limit := range []uint64{256, 400, 512, 1000, 1024, 4096, 65536, 1 << 20} {
		a, d := AdminConns(limit), DataConns(limit)
		if d > 64 && uint64(a+2*d+fdReserve) > limit {
			t.Errorf("limit %d: admin %d + 2 x data %d + reserve %d is over it", limit, a, d, fdReserve)
		}
		if d < 64 {
			t.Errorf("limit %d: data cap %d under its floor", limit, d)
		}
	}
}

// With the open-files limit at 256 (ulimit -n 256), a flood of 300
// connections on the admin listener leaves the data listener answering:
// the admin listener holds at most AdminConns(256) = 16 of them and
// refuses the rest, where a cap of 256 let the flood take every
// descriptor, and the data port stopped accepting until the flood's
// connections timed out 10 s later. The listeners run in a child process
// with the lowered limit (the flood's own sockets are the parent's).
func TestAdminFloodUnderALowFDLimitLeavesTheDataPort(t *testing.T) {
	if os.Getenv("LBLAB_FDLIMIT_CHILD") != "" {
		return // the child serves from the test binary's init (below) and never runs tests
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdminFloodUnderALowFDLimitLeavesTheDataPort$")
	cmd.Env = append(os.Environ(), "LBLAB_FDLIMIT_CHILD=256")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe() // the child runs until its stdin closes
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the child said nothing: %v", err)
	}
	var admin, data string
	var cap int
	if _, err := fmt.Sscanf(line, "admin %s data %s cap %d", &admin, &data, &cap); err != nil {
		t.Fatalf("the child said %q: %v", line, err)
	}
	if cap != AdminConns(256) {
		t.Fatalf("the child's admin cap is %d under a limit of 256, want %d", cap, AdminConns(256))
	}
	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for range 300 {
		c, err := net.DialTimeout("tcp", admin, 2*time.Second)
		if err != nil {
			break // the backlog is full: the flood is as large as it gets
		}
		flood = append(flood, c)
	}
	time.Sleep(300 * time.Millisecond) // let the child accept what it can
	hc := &fasthttp.HostClient{Addr: data}
	defer hc.CloseIdleConnections()
	// A wide bound: an answer comes in milliseconds; without the derived
	// cap none came before the flood's connections timed out (10 s).
	status, body, err := hc.GetTimeout(nil, "http://"+data+"/", 5*time.Second)
	if err != nil || status != 200 || string(body) != "ok" {
		t.Fatalf("the data port under an admin flood of %d connections: %d %q %v", len(flood), status, body, err)
	}
}

// init is, under LBLAB_FDLIMIT_CHILD, the child of the test above: it lowers its open-files
// limit, serves an admin and a data listener with their default caps,
// prints their addresses and serves until its stdin closes.
func init() {
	if os.Getenv("LBLAB_FDLIMIT_CHILD") == "" {
		return
	}
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		fmt.Fprintln(os.Stderr, "getrlimit:", err)
		os.Exit(1)
	}
	r.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		os.Exit(1)
	}
	serve := func(lim Limits) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, "listen:", err)
			os.Exit(1)
		}
		srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") }}
		Serve(srv, ln, lim, nil)
		return ln.Addr().String()
	}
	admin := AdminLimits()
	fmt.Printf("admin %s data %s cap %d\n", serve(admin), serve(DataLimits(0)), admin.MaxConns)
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	os.Exit(0)
}
