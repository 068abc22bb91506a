package conns

import (
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// serve runs a fasthttp server on a counting (optionally TLS) listener of
// 127.0.0.1; it answers with the path.
func serve(t *testing.T, tlsOn bool) (addr string, accepted *atomic.Uint64, d *Dialer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Uint64)
	d = &Dialer{}
	var lnTLS = Listen(ln, nil, accepted)
	if tlsOn {
		cert, key, err := WriteCert(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		srvCfg, err := ServerTLS(cert, key)
		if err != nil {
			t.Fatal(err)
		}
		if d.TLS, err = ClientTLS(cert); err != nil {
			t.Fatal(err)
		}
		lnTLS = Listen(ln, srvCfg, accepted)
	}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBody(ctx.Path()) }, IdleTimeout: time.Minute}
	go srv.Serve(lnTLS)
	t.Cleanup(func() { srv.Shutdown() })
	return ln.Addr().String(), accepted, d
}

func get(t *testing.T, c *Conn, path string) (string, error) {
	t.Helper()
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(path)
	req.SetHost("lab")
	err := c.Do(req, resp, time.Now().Add(5*time.Second), 0)
	return string(resp.Body()), err
}

// One model connection is one accepted connection, however many requests
// it carries, over plain TCP and TLS alike.
func TestOneConnectionPerModelConnection(t *testing.T) {
	for _, tlsOn := range []bool{false, true} {
		addr, accepted, d := serve(t, tlsOn)
		a, b := New(addr), New(addr)
		if a.Opened() {
			t.Fatal("a new Conn is open before Open")
		}
		if _, err := get(t, a, "/x"); err == nil {
			t.Fatal("Do on a connection never opened succeeded")
		}
		for _, c := range []*Conn{a, b} {
			if err := c.Open(d, time.Now().Add(5*time.Second)); err != nil {
				t.Fatalf("tls %v: %v", tlsOn, err)
			}
		}
		for i := range 3 {
			for _, c := range []*Conn{a, b} {
				if body, err := get(t, c, "/r"); err != nil || body != "/r" {
					t.Fatalf("tls %v, exchange %d: %q, %v", tlsOn, i, body, err)
				}
			}
		}
		if n := accepted.Load(); n != 2 {
			t.Fatalf("tls %v: the server accepted %d connections for 2 model connections", tlsOn, n)
		}
		a.Close()
		b.Close()
		b.Close() // twice is fine
	}
}

// A connection the other end closed while idle fails its next exchange
// before any answer: Stale says so, and Reopen carries the request.
func TestStaleConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := new(atomic.Uint64)
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBody([]byte("ok")) }, IdleTimeout: 50 * time.Millisecond}
	go srv.Serve(Listen(ln, nil, accepted))
	defer srv.Shutdown()
	c, d := New(ln.Addr().String()), &Dialer{}
	if err := c.Open(d, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := get(t, c, "/"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		time.Sleep(100 * time.Millisecond) // the server's idle timeout closes it
		_, err = get(t, c, "/")
		if err != nil || time.Now().After(deadline) {
			break
		}
	}
	if !c.Stale(err) {
		t.Fatalf("after the server closed the idle connection: %v, Stale false", err)
	}
	if err := c.Reopen(d, time.Now().Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	if body, err := get(t, c, "/"); err != nil || body != "ok" {
		t.Fatalf("after Reopen: %q %v", body, err)
	}
	if accepted.Load() < 2 {
		t.Fatalf("accepted %d, want the reopened connection counted", accepted.Load())
	}
}
