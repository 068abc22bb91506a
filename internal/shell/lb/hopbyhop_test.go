package lb

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/shell/wire"
)

// A backend never sees the fields of the client's connection (RFC 9110
// section 7.6.1): Connection, the fields it names, Keep-Alive,
// Proxy-Connection, TE, Upgrade (an h2c upgrade attempt) and
// Proxy-Authorization; it does see every end-to-end field. The client in
// turn never sees the backend's hop-by-hop fields. Keep-alive towards the
// client works for HTTP/1.1 and HTTP/1.0 alike.
func TestHopByHopFieldsAreNotForwarded(t *testing.T) {
	var mu sync.Mutex
	var seen []map[string]string
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		h := map[string]string{}
		for k, v := range ctx.Request.Header.All() {
			h[strings.ToLower(string(k))] = string(v)
		}
		mu.Lock()
		seen = append(seen, h)
		mu.Unlock()
		ctx.Response.Header.Set(wire.HServer, "s1")
		ctx.Response.Header.Set("Connection", "X-Backend-Hop")
		ctx.Response.Header.Set("X-Backend-Hop", "conn-detail")
		ctx.Response.Header.Set("Keep-Alive", "timeout=5")
		ctx.Response.Header.Set("Proxy-Authenticate", "Basic realm=x")
		ctx.Response.Header.Set("Upgrade", "h2c")
		ctx.Response.Header.Set("X-End", "kept")
		ctx.SetBodyString("ok")
	}}
	done := wire.Serve(srv, ln, wire.Limits{}, nil)
	t.Cleanup(func() { srv.Shutdown(); <-done })
	_, c := startLBWith(t, Config{Name: "lbt", Lab: testLab(t), IdleConn: time.Second,
		Backends: []BackendSpec{{Name: "s1", Addr: ln.Addr().String(), Admin: ln.Addr().String()}}})

	conn, err := net.Dial("tcp", c.data.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	hop := "Connection: keep-alive, X-Client-Hop, HTTP2-Settings, Upgrade\r\n" +
		"X-Client-Hop: conn-detail\r\nHTTP2-Settings: AAMAAABkAARAAAAA\r\nUpgrade: h2c\r\n" +
		"Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nTE: trailers\r\n" +
		"Proxy-Authorization: Basic cHJveHk6c2VjcmV0\r\nX-End-To-End: kept\r\n"
	for i, proto := range []string{"HTTP/1.1", "HTTP/1.0", "HTTP/1.1"} { // one connection throughout
		if _, err := conn.Write([]byte("GET /x " + proto + "\r\nHost: lb\r\n" + hop + "\r\n")); err != nil {
			t.Fatal(err)
		}
		var resp fasthttp.Response
		if err := resp.Read(br); err != nil {
			t.Fatalf("request %d (%s): %v", i, proto, err)
		}
		if resp.StatusCode() != 200 || string(resp.Body()) != "ok" || string(resp.Header.Peek("X-End")) != "kept" {
			t.Fatalf("request %d (%s): %d %q, X-End %q", i, proto, resp.StatusCode(), resp.Body(), resp.Header.Peek("X-End"))
		}
		for _, name := range []string{"X-Backend-Hop", "Keep-Alive", "Proxy-Authenticate", "Upgrade"} {
			// To an HTTP/1.0 request the backend's fasthttp answers
			// Connection: keep-alive in place of its handler's value, so
			// X-Backend-Hop is no longer named there: an end-to-end field.
			if v := resp.Header.Peek(name); len(v) > 0 && (name != "X-Backend-Hop" || proto == "HTTP/1.1") {
				t.Errorf("request %d (%s): the client got the backend's %s: %q", i, proto, name, v)
			}
		}
		if resp.ConnectionClose() {
			t.Fatalf("request %d (%s): the lb closes the client's keep-alive connection", i, proto)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("the backend saw %d requests, want 3", len(seen))
	}
	for i, h := range seen {
		for _, name := range []string{"x-client-hop", "http2-settings", "upgrade", "keep-alive", "proxy-connection", "te", "proxy-authorization"} {
			if v, ok := h[name]; ok {
				t.Errorf("request %d: the backend got %s: %q", i, name, v)
			}
		}
		if v := h["connection"]; v != "" && v != "keep-alive" {
			t.Errorf("request %d: the backend got Connection: %q, the client's options", i, v)
		}
		if h["x-end-to-end"] != "kept" {
			t.Errorf("request %d: the end-to-end field did not arrive: %v", i, h)
		}
	}
}

// The look for hop-by-hop fields costs an ordinary request no allocation
// (it runs on every proxied request).
func TestStripHopByHopAllocatesNothingWithoutThem(t *testing.T) {
	var req fasthttp.Request
	req.Header.SetMethod("GET")
	req.SetRequestURI("http://lb/x")
	for _, kv := range [][2]string{{wire.HRequest, "12"}, {wire.HKey, "7"}, {wire.HAttempt, "first"}, {"User-Agent", "hey"}} {
		req.Header.Set(kv[0], kv[1])
	}
	if n := testing.AllocsPerRun(100, func() { stripHopByHop(&req.Header) }); n != 0 {
		t.Errorf("%v allocations per request", n)
	}
}
