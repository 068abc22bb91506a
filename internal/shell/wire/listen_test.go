package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// flakyListener fails its first n accepts with err, then accepts from the
// real listener.
type flakyListener struct {
	net.Listener
	n   int
	err error
}

func (f *flakyListener) Accept() (net.Conn, error) {
	if f.n > 0 {
		f.n--
		return nil, f.err
	}
	return f.Listener.Accept()
}

func listenTCP(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

// TestAcceptRetriesTemporaryErrors: out of file descriptors, Accept waits
// and tries again rather than returning the error that ends a server.
func TestAcceptRetriesTemporaryErrors(t *testing.T) {
	inner := listenTCP(t)
	var logged []string
	ln := Listen(&flakyListener{Listener: inner, n: 3, err: &net.OpError{Op: "accept", Err: os.NewSyscallError("accept4", syscall.EMFILE)}},
		0, func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	go func() {
		if c, err := net.Dial("tcp", inner.Addr().String()); err == nil {
			defer c.Close()
			time.Sleep(time.Second)
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("Accept after three EMFILEs: %v", err)
	}
	c.Close()
	if len(logged) != 1 || !strings.Contains(logged[0], "too many open files") {
		t.Fatalf("want one log line about the error, got %q", logged)
	}

	// A permanent error still ends Accept.
	perm := Listen(&flakyListener{Listener: inner, n: 1, err: errors.New("boom")}, 0, nil)
	if _, err := perm.Accept(); err == nil || err.Error() != "boom" {
		t.Fatalf("permanent error: %v", err)
	}

	// Close during the back-off ends Accept at once.
	stuck := Listen(&flakyListener{Listener: inner, n: 1 << 30, err: syscall.ENFILE}, 0, nil)
	done := make(chan error, 1)
	go func() { _, err := stuck.Accept(); done <- err }()
	time.Sleep(50 * time.Millisecond)
	stuck.Close()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("after Close: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Accept did not end after Close")
	}
}

func serveTest(t *testing.T, lim Limits) (addr string) {
	t.Helper()
	ln := listenTCP(t)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") },
		MaxIdleWorkerDuration: 100 * time.Millisecond}
	done := Serve(srv, ln, lim, nil)
	t.Cleanup(func() { _ = srv.Shutdown(); <-done })
	return ln.Addr().String()
}

// get sends one request on c and returns the status line.
func get(t *testing.T, c net.Conn, br *bufio.Reader) string {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return err.Error()
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err.Error()
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.Status
}

// TestConnectionCap: beyond MaxConns a connection gets 503 and is closed;
// once one closes, a new one is served.
func TestConnectionCap(t *testing.T) {
	addr := serveTest(t, Limits{MaxConns: 2})
	var conns []net.Conn
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if st := get(t, c, bufio.NewReader(c)); st != "200 OK" {
			t.Fatalf("connection %d: %s", i, st)
		}
		conns = append(conns, c)
	}
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	_ = over.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(over), nil)
	if err != nil || resp.StatusCode != 503 {
		t.Fatalf("over the cap: %v %v", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), "at most 2") {
		t.Fatalf("body %q", body)
	}
	conns[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		st := get(t, c, bufio.NewReader(c))
		c.Close()
		if st == "200 OK" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a slot never came back: %s", st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestIdleAndSlowConnectionsAreClosed: a keep-alive connection idle past
// IdleTimeout and one that never finishes its headers within ReadTimeout
// are closed by the server, so their goroutines go.
func TestIdleAndSlowConnectionsAreClosed(t *testing.T) {
	addr := serveTest(t, Limits{MaxConns: 10, ReadTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond})
	idle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	br := bufio.NewReader(idle)
	if st := get(t, idle, br); st != "200 OK" {
		t.Fatal(st)
	}
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := io.WriteString(slow, "GET / HTTP/1.1\r\nHost: x\r\n"); err != nil { // headers never end
		t.Fatal(err)
	}
	for name, c := range map[string]net.Conn{"idle": idle, "slow": slow} {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var r io.Reader = c
		if name == "idle" {
			r = br
		}
		_, err := io.ReadAll(r) // returns when the server closes the connection
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the %s connection was still open after 10 s", name)
		}
	}
}
